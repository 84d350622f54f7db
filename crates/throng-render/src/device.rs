//! Headless device setup: any adapter wgpu can find (a real GPU, or Mesa's lavapipe software
//! Vulkan on machines without one), with a typed error that says what to install.

use thiserror::Error;

/// What to install for a software GPU on Debian/Ubuntu (see docs/TOOLCHAIN.md).
pub const SOFTWARE_GPU_HINT: &str =
    "install a GPU driver, or software Vulkan with `apt-get install mesa-vulkan-drivers libvulkan1`";

/// Why no device could be created.
#[derive(Debug, Error)]
pub enum DeviceError {
    #[error("no GPU adapter found (backends tried: {backends}); {SOFTWARE_GPU_HINT}")]
    NoAdapter {
        backends: String,
        #[source]
        source: wgpu::RequestAdapterError,
    },
    #[error("adapter {adapter} refused a device")]
    RequestDevice {
        adapter: String,
        #[source]
        source: wgpu::RequestDeviceError,
    },
}

/// The adapter the renderer runs on, for reports and logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterSummary {
    /// Adapter name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// "vulkan", "gl", "metal", "dx12".
    pub backend: String,
    /// "DiscreteGpu", "IntegratedGpu", "Cpu" (software), …
    pub device_type: String,
    pub driver: String,
}

impl AdapterSummary {
    /// A rasteriser that runs on the CPU (Mesa's lavapipe/llvmpipe/softpipe, SwiftShader,
    /// Microsoft WARP): every vertex is skinned and every pixel shaded by the CPU, so tools
    /// choose smaller crowds and pictures by default.
    pub fn is_software(&self) -> bool {
        throng_contract::software_adapter(&self.name, &self.device_type)
    }
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} ({}, {}{}{})",
            self.name,
            self.backend,
            self.device_type,
            if self.driver.is_empty() { "" } else { ", " },
            self.driver
        )
    }
}

/// A wgpu device and queue plus what was found. Cheap to keep and to clone (a clone is the same
/// device); every pipeline is built on it.
#[derive(Clone)]
pub struct Gpu {
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub summary: AdapterSummary,
}

impl AdapterSummary {
    pub fn of(adapter: &wgpu::Adapter) -> AdapterSummary {
        let info = adapter.get_info();
        AdapterSummary {
            name: info.name.clone(),
            backend: info.backend.to_str().to_string(),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver_info.clone(),
        }
    }
}

impl Gpu {
    /// Wraps an application's own adapter, device and queue (e.g. one that also drives a
    /// window surface). The renderer needs no optional feature; large crowds need
    /// `max_storage_buffer_binding_size` ≥ 8 B × instances × LODs.
    pub fn from_device(adapter: wgpu::Adapter, device: wgpu::Device, queue: wgpu::Queue) -> Gpu {
        Gpu {
            summary: AdapterSummary::of(&adapter),
            adapter,
            device,
            queue,
        }
    }

    /// What this device lacks for the full mode (compute culling, palettes, storage buffers
    /// in the vertex stage, indirect draws), by name; `None`: it runs the full mode. A
    /// [`crate::Renderer`] on a device that lacks something draws in the downlevel mode
    /// (docs/downlevel.md).
    pub fn full_path_missing(&self) -> Option<&'static str> {
        crate::downlevel::full_path_missing(
            &self.adapter.get_downlevel_capabilities(),
            &self.device.limits(),
        )
    }

    /// Finds any adapter (honouring `WGPU_BACKEND`, `WGPU_ADAPTER_NAME`, `WGPU_DEBUG` …) and
    /// creates a device with the limits of the mode it runs
    /// ([`crate::downlevel::device_request`]): for the full mode wgpu's default limits, raised
    /// to what the adapter offers for texture size, array layers and storage buffers (the bone
    /// texture and per-instance data may exceed the defaults); on an adapter without compute
    /// shaders (or vertex-stage storage buffers, or indirect draws), WebGL2's limits.
    pub fn new() -> Result<Gpu, DeviceError> {
        pollster::block_on(Self::new_async())
    }

    async fn new_async() -> Result<Gpu, DeviceError> {
        // Vulkan/Metal/DX12 first, GL only when nothing else exists: every path draws the same
        // image on GL (tests/gl_backend.rs of the CLI), but wgpu's GL backend has no texture
        // views, no multi-draw indirect and, on llvmpipe, runs several times slower than
        // lavapipe. `WGPU_BACKEND` overrides both.
        let chosen = std::env::var_os("WGPU_BACKEND").is_some();
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
        let all = desc.backends;
        if !chosen {
            desc.backends = wgpu::Backends::PRIMARY;
        }
        let adapter = match wgpu::Instance::new(desc)
            .request_adapter(&wgpu::RequestAdapterOptions::default())
            .await
        {
            Ok(a) => a,
            Err(source) if chosen => {
                let backends = format!("{all:?}");
                return Err(DeviceError::NoAdapter { backends, source });
            }
            Err(_) => {
                let mut desc = wgpu::InstanceDescriptor::new_without_display_handle().with_env();
                desc.backends = all;
                wgpu::Instance::new(desc)
                    .request_adapter(&wgpu::RequestAdapterOptions::default())
                    .await
                    .map_err(|source| DeviceError::NoAdapter {
                        backends: format!("{all:?}"),
                        source,
                    })?
            }
        };
        Self::from_adapter(adapter).await
    }

    /// Creates the device of [`Gpu::new`] (its limits and optional features) on an adapter the
    /// caller found, e.g. one that can present to a browser canvas's surface. Async because a
    /// browser must never block on device creation (`pollster::block_on` does not work there).
    pub async fn from_adapter(adapter: wgpu::Adapter) -> Result<Gpu, DeviceError> {
        let summary = AdapterSummary::of(&adapter);
        // Only what the mode this adapter runs needs (docs/downlevel.md): a device without
        // compute shaders refuses a request for wgpu's default compute limits.
        let (required_limits, required_features, _) = crate::downlevel::device_request(&adapter);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("throng"),
                required_limits,
                required_features,
                ..Default::default()
            })
            .await
            .map_err(|source| DeviceError::RequestDevice {
                adapter: summary.to_string(),
                source,
            })?;
        Ok(Gpu {
            adapter,
            device,
            queue,
            summary,
        })
    }
}

/// The configuration of a window's surface for throng's frames: the adapter's default at
/// `width` × `height` pixels, with an sRGB format where the surface offers one (the renderer
/// writes linear colour; an sRGB target encodes it for the screen). `None` when the adapter
/// cannot present to the surface.
pub fn surface_config(
    surface: &wgpu::Surface,
    adapter: &wgpu::Adapter,
    (width, height): (u32, u32),
) -> Option<wgpu::SurfaceConfiguration> {
    let mut config = surface.get_default_config(adapter, width.max(1), height.max(1))?;
    let caps = surface.get_capabilities(adapter);
    if let Some(&srgb) = caps.formats.iter().find(|f| f.is_srgb()) {
        config.format = srgb;
    }
    Some(config)
}

/// For tests: a device, or `None` (with a message) when no adapter exists outside CI.
///
/// # Panics
/// When `CI` is set and no device can be created (CI must never pass by skipping).
pub fn test_gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) if std::env::var_os("CI").is_none() => {
            eprintln!("skipping GPU test: {e}");
            None
        }
        Err(e) => panic!("CI has no usable GPU adapter: {e}"),
    }
}
