//! throng-runtime
