//! throng-bake
