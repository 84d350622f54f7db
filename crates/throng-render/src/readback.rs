//! Blocking buffer readback.

use crate::device::Gpu;
use crate::error::RenderError;

/// A buffer of `size` bytes to copy GPU results into and read back with [`map_read`].
pub(crate) fn read_buffer(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// Maps a MAP_READ buffer after the queue's work is done and copies its bytes out.
pub fn map_read(gpu: &Gpu, buffer: &wgpu::Buffer) -> Result<Vec<u8>, RenderError> {
    let slice = buffer.slice(..);
    let (tx, rx) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = tx.send(r);
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    rx.recv()
        .map_err(|e| RenderError::Readback(e.to_string()))?
        .map_err(|e| RenderError::Readback(e.to_string()))?;
    let data = slice
        .get_mapped_range()
        .map_err(|e| RenderError::Readback(format!("{e:?}")))?
        .to_vec();
    buffer.unmap();
    Ok(data)
}
