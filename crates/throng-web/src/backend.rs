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

/// What advice a capability error gives on WebGL2, until the renderer's downlevel mode exists.
pub const WEBGL2_ADVICE: &str = "WebGL2 needs the renderer's downlevel (no compute) mode, which this build does not have yet; open the page in a browser with WebGPU enabled";

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

/// Whether an adapter of `backend` named `adapter` can run the renderer: compute shaders
/// (culling and the palette pass), storage buffers read by vertex shaders, indirect draws, and
/// wgpu's default limits (what `Gpu::from_adapter` requests). The error names everything
/// missing.
pub fn check_capabilities(
    backend: Backend,
    adapter: &str,
    downlevel: wgpu::DownlevelFlags,
    limits: &wgpu::Limits,
) -> Result<(), WebError> {
    use wgpu::DownlevelFlags as F;
    let mut missing: Vec<String> = [
        (F::COMPUTE_SHADERS, "compute shaders"),
        (F::VERTEX_STORAGE, "storage buffers in vertex shaders"),
        (F::INDIRECT_EXECUTION, "indirect draws"),
    ]
    .iter()
    .filter(|(flag, _)| !downlevel.contains(*flag))
    .map(|(_, name)| name.to_string())
    .collect();
    wgpu::Limits::default().check_limits_with_fail_fn(limits, false, |name, needed, got| {
        missing.push(format!("{name} {needed} (it has {got})"))
    });
    if missing.is_empty() {
        return Ok(());
    }
    Err(WebError::MissingCapability {
        backend: backend.label(),
        adapter: adapter.into(),
        missing: missing.join(", "),
        advice: match backend {
            Backend::WebGl2 => WEBGL2_ADVICE,
            _ => WEBGPU_ADVICE,
        },
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

    #[test]
    fn a_webgl2_adapter_is_refused_naming_what_it_lacks() {
        // What wgpu's GL backend reports for WebGL2: downlevel WebGL2 flags and limits.
        let flags = wgpu::DownlevelCapabilities::default().flags
            - wgpu::DownlevelFlags::COMPUTE_SHADERS
            - wgpu::DownlevelFlags::VERTEX_STORAGE;
        let limits = wgpu::Limits::downlevel_webgl2_defaults();
        let e = check_capabilities(Backend::WebGl2, "ANGLE", flags, &limits)
            .expect_err("WebGL2 cannot run the compute passes");
        let text = e.to_string();
        assert!(
            text.contains("lacks compute shaders, storage buffers in vertex shaders"),
            "{text}"
        );
        assert!(
            text.contains("max_storage_buffers_per_shader_stage"),
            "{text}"
        );
        assert!(text.contains("downlevel"), "{text}");
        let full = wgpu::DownlevelCapabilities::default().flags;
        check_capabilities(Backend::WebGpu, "any", full, &wgpu::Limits::default())
            .expect("a WebGPU adapter with the defaults");
    }
}
