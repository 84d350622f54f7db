//! throng-render
