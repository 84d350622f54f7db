//! Which browser graphics API draws the page, and whether its adapter can run throng's
//! renderer. Decided before the canvas is touched: a canvas that handed out a `webgpu` context
//! can never give a `webgl2` one, so the fallback must be chosen first.

use crate::error::WebError;

/// The `backend` option of the JavaScript API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// WebGPU when `navigator.gpu` gives an adapter, else WebGL2.
    Auto,
    WebGpu,
    WebGl2,
}

/// Advice for an adapter below even what the renderer's downlevel (no compute) mode needs:
/// WebGL2's guaranteed limits.
pub const DOWNLEVEL_ADVICE: &str =
    "this device is below WebGL2's guaranteed limits, which the renderer's downlevel (no compute) mode needs; try another browser or GPU";

/// Advice for a WebGPU adapter below the renderer's needs.
pub const WEBGPU_ADVICE: &str =
    "this device's WebGPU is below the WebGPU defaults throng needs; try another browser or GPU";

impl Backend {
    pub fn parse(s: &str) -> Result<Backend, WebError> {
        match s {
            "auto" => Ok(Backend::Auto),
            "webgpu" => Ok(Backend::WebGpu),
            "webgl2" => Ok(Backend::WebGl2),
            _ => Err(WebError::UnknownBackend { got: s.into() }),
        }
    }

    /// The API to use when `webgpu_available` says whether `navigator.gpu` gave an adapter:
    /// [`Backend::WebGpu`] or [`Backend::WebGl2`]; an error when WebGPU was asked for and is
    /// not there.
    pub fn choose(self, webgpu_available: bool) -> Result<Backend, WebError> {
        match (self, webgpu_available) {
            (Backend::Auto, true) | (Backend::WebGpu, true) => Ok(Backend::WebGpu),
            (Backend::Auto, false) | (Backend::WebGl2, _) => Ok(Backend::WebGl2),
            (Backend::WebGpu, false) => Err(WebError::NoAdapter {
                backend: "WebGPU",
                why: "navigator.gpu is missing or gave no adapter (WebGPU is off in this browser, or needs a secure context: https or localhost); pass backend: \"auto\" to fall back to WebGL2".into(),
            }),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::WebGpu => "webgpu",
            Backend::WebGl2 => "webgl2",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Backend::WebGl2 => "WebGL2",
            _ => "WebGPU",
        }
    }
}

/// The limits the renderer's downlevel mode needs: WebGL2's guaranteed ones (2048 texels per
/// side, no compute, no storage buffers), what `throng_render::downlevel::device_request`
/// asks such an adapter for.
pub fn downlevel_limits() -> wgpu::Limits {
    wgpu::Limits {
        max_texture_dimension_2d: throng_render::downlevel::MAX_TEXTURE_SIDE,
        ..wgpu::Limits::downlevel_webgl2_defaults()
    }
}

/// Whether an adapter of `backend` named `adapter` can run the renderer, and in which mode.
/// `Ok(None)`: the full mode (compute culling and palettes, storage buffers read by vertex
/// shaders, indirect draws, wgpu's default limits). `Ok(Some(what it lacks))`: the downlevel
/// mode (docs/downlevel.md), which every WebGL2 device with WebGL2's guaranteed limits
/// runs. The error names every limit missing for the mode the adapter would run.
pub fn check_capabilities(
    backend: Backend,
    adapter: &str,
    caps: &wgpu::DownlevelCapabilities,
    limits: &wgpu::Limits,
) -> Result<Option<&'static str>, WebError> {
    let downlevel = throng_render::downlevel::full_path_missing(caps, limits);
    let (needed, advice) = match downlevel {
        None => (wgpu::Limits::default(), WEBGPU_ADVICE),
        Some(_) => (downlevel_limits(), DOWNLEVEL_ADVICE),
    };
    let mut missing = Vec::new();
    needed.check_limits_with_fail_fn(limits, false, |name, needed, got| {
        missing.push(format!("{name} {needed} (it has {got})"))
    });
    if missing.is_empty() {
        return Ok(downlevel);
    }
    Err(WebError::MissingCapability {
        backend: backend.label(),
        adapter: adapter.into(),
        missing: missing.join(", "),
        advice,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_takes_webgpu_when_there_is_an_adapter_and_webgl2_otherwise() {
        assert_eq!(Backend::Auto.choose(true).ok(), Some(Backend::WebGpu));
        assert_eq!(Backend::Auto.choose(false).ok(), Some(Backend::WebGl2));
        assert_eq!(Backend::WebGl2.choose(true).ok(), Some(Backend::WebGl2));
        let e = Backend::WebGpu.choose(false).expect_err("no WebGPU");
        assert!(e.to_string().starts_with("no WebGPU adapter"), "{e}");
        assert!(Backend::parse("webgl").is_err());
        for b in [Backend::Auto, Backend::WebGpu, Backend::WebGl2] {
            assert_eq!(Backend::parse(b.as_str()).ok(), Some(b));
        }
    }

    /// What wgpu's GL backend reports for WebGL2: no compute shaders, no vertex-stage storage
    /// buffers, WebGL2's limits.
    fn webgl2_caps() -> wgpu::DownlevelCapabilities {
        let mut caps = wgpu::DownlevelCapabilities::default();
        caps.flags -= wgpu::DownlevelFlags::COMPUTE_SHADERS | wgpu::DownlevelFlags::VERTEX_STORAGE;
        caps
    }

    #[test]
    fn a_webgl2_adapter_runs_the_downlevel_mode() {
        let limits = wgpu::Limits::downlevel_webgl2_defaults();
        let mode = check_capabilities(Backend::WebGl2, "ANGLE", &webgl2_caps(), &limits)
            .expect("WebGL2's guaranteed limits are enough for the downlevel mode");
        assert_eq!(mode, Some("compute shaders"));
        let full = wgpu::DownlevelCapabilities::default();
        let mode = check_capabilities(Backend::WebGpu, "any", &full, &wgpu::Limits::default())
            .expect("a WebGPU adapter with the defaults");
        assert_eq!(mode, None);
    }

    #[test]
    fn adapters_below_their_mode_are_refused_naming_what_they_lack() {
        let small = wgpu::Limits {
            max_texture_dimension_2d: 1024,
            ..wgpu::Limits::downlevel_webgl2_defaults()
        };
        let e = check_capabilities(Backend::WebGl2, "ANGLE", &webgl2_caps(), &small)
            .expect_err("below WebGL2's guaranteed texture size");
        let text = e.to_string();
        assert!(
            text.starts_with(
                "the WebGL2 adapter ANGLE lacks max_texture_dimension_2d 2048 (it has 1024)"
            ),
            "{text}"
        );
        assert!(text.ends_with(DOWNLEVEL_ADVICE), "{text}");
        // Compute shaders but below wgpu's defaults: the full mode's device request fails.
        let full = wgpu::DownlevelCapabilities::default();
        let low = wgpu::Limits {
            max_bind_groups: 2,
            ..wgpu::Limits::default()
        };
        let e = check_capabilities(Backend::WebGpu, "X", &full, &low).expect_err("2 groups");
        assert!(
            e.to_string().contains("max_bind_groups 4 (it has 2)"),
            "{e}"
        );
    }
}
