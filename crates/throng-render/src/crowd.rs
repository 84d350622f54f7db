//! A crowd of one frame: instances of one uploaded asset, their transforms and their playback
//! records (docs/design.md §4), checked and put in GPU buffers for the passes.

use wgpu::util::DeviceExt;

use crate::bindings as b;
use crate::error::RenderError;
use crate::gpu_asset::GpuAsset;
use crate::gpu_types::TimingUniform;
use crate::upload::storage_buffer;
use throng_contract::{
    GpuInstanceRecord, GpuRecordWrite, InstanceRecord, InstanceTransform, RecordChanges, Records,
    Timing,
};

/// Per-instance playback data of one crowd (docs/design.md §4).
#[derive(Debug, Clone, Copy)]
pub enum Playback<'a> {
    /// A runtime's records of either timing (`Runtime::records()`; throng-contract's
    /// [`Records`]: CPU-timed, 4 layers per instance; GPU-timed, a compact record per instance
    /// and the clock), every one uploaded for this frame.
    Records(Records<'a>),
    /// Records (either timing) already on the GPU in a [`CrowdUpload`] the application keeps
    /// across frames and updates with what changed (a GPU-timed runtime's changes alone).
    Uploaded(&'a CrowdUpload),
}

impl<'a> From<Records<'a>> for Playback<'a> {
    /// A runtime's records as this frame draws them (every record is uploaded).
    fn from(r: Records<'a>) -> Playback<'a> {
        Playback::Records(r)
    }
}

impl Playback<'_> {
    pub fn len(&self) -> usize {
        match self {
            Playback::Records(r) => r.len(),
            Playback::Uploaded(u) => u.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn timing(&self) -> Timing {
        match self {
            Playback::Records(r) => r.timing(),
            Playback::Uploaded(u) => u.timing,
        }
    }
}

/// One crowd of a frame: instances of one asset.
#[derive(Clone, Copy)]
pub struct Crowd<'a> {
    pub asset: &'a GpuAsset,
    /// World-from-model transform per instance (file units).
    pub transforms: &'a [InstanceTransform],
    /// Playback record per instance, CPU- or GPU-timed (docs/design.md §4).
    pub playback: Playback<'a>,
    /// Meshes drawn on anchors of `asset` for every instance (docs/design.md §5 "Props"); one
    /// instanced draw per prop and pass.
    pub props: &'a [crate::Prop<'a>],
    /// Instances whose skin matrices the application gives this frame instead of the palette
    /// pass (the palette path only; docs/design.md §4 "Live poses"); usually empty.
    pub live: &'a [LivePose<'a>],
    /// Per-instance tint, material variant, part and prop masks (docs/design.md §5
    /// "Appearance"); [`CrowdAppearance::Default`] draws every instance as the asset is.
    pub appearance: crate::CrowdAppearance<'a>,
}

/// One instance posed by the application for a frame (docs/design.md §4 "Live poses"), e.g.
/// sampled on the CPU from the source clips with a look-at or IK applied. It is drawn in the
/// crowd's own draws, culled (by the asset's bounds over every baked row, padded by
/// [`crate::ROW_PAD`] of its diagonal), given a LOD and shadowed like the others; the palette
/// pass skips it and its matrices are copied into its palette slot. Its record still places
/// its props (anchors follow the record, not the live pose).
#[derive(Debug, Clone, Copy)]
pub struct LivePose<'a> {
    /// Index of the instance in the crowd.
    pub instance: u32,
    /// One skin matrix `S_j = W_j · IBM_j` per palette entry of the crowd's asset, in its
    /// order (model space from bind space, file units).
    pub matrices: &'a [throng_contract::SkinMatrix],
}

impl<'a> Crowd<'a> {
    /// A crowd of `asset` at `transforms` played by `playback`, without props or live poses
    /// (set them with struct update: `Crowd { props, ..Crowd::new(..) }`).
    pub fn new(
        asset: &'a GpuAsset,
        transforms: &'a [InstanceTransform],
        playback: Playback<'a>,
    ) -> Crowd<'a> {
        Crowd {
            asset,
            transforms,
            playback,
            props: &[],
            live: &[],
            appearance: crate::CrowdAppearance::Default,
        }
    }
}

impl Crowd<'_> {
    pub fn len(&self) -> usize {
        self.transforms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }

    /// One record per transform.
    pub(crate) fn check_records(&self) -> Result<(), RenderError> {
        if self.transforms.len() != self.playback.len() {
            return Err(RenderError::BadInput {
                what: "instance records (one per transform)",
                got: self.playback.len(),
                expected: self.transforms.len(),
            });
        }
        Ok(())
    }

    /// [`Self::check_records`], props on anchors the asset has, live poses, one appearance per
    /// instance, and buffers within the device's limits: the largest is the visible-id list
    /// (4 B × 3 lists per LOD and a history word per instance) or the records (64 B per
    /// instance).
    pub(crate) fn check(&self, limits: &wgpu::Limits) -> Result<(), RenderError> {
        self.check_records()?;
        for p in self.props {
            self.asset.check_anchor(p.anchor)?;
        }
        self.check_live()?;
        let appearances = match self.appearance {
            crate::CrowdAppearance::Default => self.len(),
            crate::CrowdAppearance::Slice(s) => s.len(),
            crate::CrowdAppearance::Uploaded(u) => u.len(),
        };
        if appearances != self.len() {
            return Err(RenderError::BadInput {
                what: "instance appearances (one per transform)",
                got: appearances,
                expected: self.len(),
            });
        }
        let lods = self.asset.lod_count() as u64;
        // Visible ids: 3 lists per LOD (main, shadow, occlusion culling's second phase) and a
        // history word; records: 64 B.
        let per_instance = (12 * lods + 4).max(64);
        let n = self.transforms.len() as u64;
        // Visible-id segments round each list up to 64 ids.
        let bytes = (n + 64) * per_instance;
        let limit = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        if bytes > limit {
            return Err(RenderError::TooManyInstances {
                asset: self.asset.name.clone(),
                instances: self.transforms.len(),
                bytes,
                limit,
                max_instances: (limit / per_instance).saturating_sub(64),
            });
        }
        Ok(())
    }
}

impl Crowd<'_> {
    /// Every live pose names an instance of the crowd, once, with one matrix per palette entry.
    fn check_live(&self) -> Result<(), RenderError> {
        let asset = || self.asset.name.clone();
        let expected = self.asset.params.entries;
        for l in self.live {
            if l.instance as usize >= self.len() {
                return Err(RenderError::LivePoseInstance {
                    asset: asset(),
                    instance: l.instance,
                    instances: self.len(),
                });
            }
            if l.matrices.len() != expected as usize {
                return Err(RenderError::LivePoseMatrices {
                    asset: asset(),
                    instance: l.instance,
                    got: l.matrices.len(),
                    expected,
                });
            }
        }
        let mut ids: Vec<u32> = self.live.iter().map(|l| l.instance).collect();
        ids.sort_unstable();
        if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(RenderError::LivePoseTwice {
                asset: asset(),
                instance: w[0],
            });
        }
        Ok(())
    }
}

/// A crowd's per-instance data on the GPU: transforms, records and (GPU-timed) the clock.
pub(crate) struct CrowdBuffers {
    pub transforms: wgpu::Buffer,
    pub records: wgpu::Buffer,
    pub clock: Option<wgpu::Buffer>,
}

impl CrowdBuffers {
    /// Buffers of one frame's data; an uploaded crowd's are its own ([`Self::of`]).
    pub fn new(device: &wgpu::Device, transforms: &[InstanceTransform], records: Records) -> Self {
        let transforms = storage_buffer(
            device,
            "throng transforms",
            transforms,
            InstanceTransform::IDENTITY,
        );
        // A storage binding may not be empty: one zeroed (disabled) record stands in.
        let (records, clock) = match records {
            Records::Cpu(r) => (
                storage_buffer(
                    device,
                    "throng playback records",
                    r,
                    InstanceRecord::default(),
                ),
                None,
            ),
            Records::Gpu { records, clock } => (
                storage_buffer(
                    device,
                    "throng playback records",
                    records,
                    GpuInstanceRecord::default(),
                ),
                Some(
                    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("throng clock"),
                        contents: bytemuck::bytes_of(&TimingUniform::new(clock)),
                        usage: wgpu::BufferUsages::UNIFORM,
                    }),
                ),
            ),
        };
        CrowdBuffers {
            transforms,
            records,
            clock,
        }
    }

    /// The buffers a crowd draws from: an uploaded crowd's own, else one frame's made in
    /// `owned`.
    pub fn of<'b>(
        device: &wgpu::Device,
        crowd: &Crowd<'b>,
        owned: &'b mut Option<CrowdBuffers>,
    ) -> &'b CrowdBuffers {
        Self::for_playback(device, crowd.transforms, crowd.playback, owned)
    }

    /// As [`Self::of`] for `playback` drawn at `transforms`.
    pub fn for_playback<'b>(
        device: &wgpu::Device,
        transforms: &[InstanceTransform],
        playback: Playback<'b>,
        owned: &'b mut Option<CrowdBuffers>,
    ) -> &'b CrowdBuffers {
        match playback {
            Playback::Uploaded(u) => &u.buffers,
            Playback::Records(r) => owned.insert(CrowdBuffers::new(device, transforms, r)),
        }
    }

    /// Bind group entries of the records and (GPU-timed) the clock.
    pub fn playback_entries(&self) -> Vec<wgpu::BindGroupEntry<'_>> {
        let records = if self.clock.is_some() {
            b::GPU_RECORDS
        } else {
            b::CPU_RECORDS
        };
        let mut v = vec![b::buffer_entry(records, &self.records)];
        v.extend(self.clock.as_ref().map(|c| b::buffer_entry(b::CLOCK, c)));
        v
    }

    /// Bind group entries of the asset (bone texture, params, clips), the transforms and the
    /// playback; `bones`: include the bone texture (the VAT path and culling read none).
    pub fn skin_entries<'a>(
        &'a self,
        asset: &'a GpuAsset,
        bones: bool,
    ) -> Vec<wgpu::BindGroupEntry<'a>> {
        let mut v = bone_entries(asset, bones);
        v.push(b::buffer_entry(b::INSTANCE_TRANSFORMS, &self.transforms));
        v.extend(asset.clip_entries());
        v.extend(self.playback_entries());
        v
    }
}

/// Bind group entries of an asset's bone texture (with `bones`; the VAT path, the palette
/// draw and culling read none) and bone params, in the full and the downlevel mode alike.
pub(crate) fn bone_entries(asset: &GpuAsset, bones: bool) -> Vec<wgpu::BindGroupEntry<'_>> {
    let mut v = Vec::with_capacity(8);
    if bones {
        v.push(wgpu::BindGroupEntry {
            binding: b::BONE_TEXTURE,
            resource: wgpu::BindingResource::TextureView(&asset.bone_view),
        });
    }
    v.push(b::buffer_entry(b::BONE_PARAMS, &asset.params_buffer));
    v
}

/// The records a GPU-timed [`CrowdUpload::update_gpu_timed`] sends.
#[derive(Debug, Clone, Copy)]
pub enum RecordUpdate<'a> {
    /// Every record of the crowd (`GpuRuntime::collect_records`): the first update, and
    /// whenever [`CrowdUpload::needs_all_records`] says so (the count changed).
    All(&'a [GpuInstanceRecord]),
    /// The records that changed in a crowd of `len` instances (`GpuRuntime::record_writes`),
    /// scattered into the record buffer by a compute pass.
    Writes {
        len: usize,
        writes: &'a [GpuRecordWrite],
    },
}

/// A crowd's per-instance buffers kept on the GPU across frames (docs/design.md §5 "Uploads"):
/// the application updates them with what changed and draws with [`Playback::Uploaded`]. A
/// GPU-timed crowd uploads only the records that changed (`GpuRuntime::record_writes`, a
/// sequential list that a compute pass scatters), the clock, and the transforms only when they
/// changed; a CPU-timed crowd writes every record each frame, straight from the runtime's
/// slice into the queue's staging memory. Growing past the capacity reallocates (doubling) and
/// writes all.
pub struct CrowdUpload {
    buffers: CrowdBuffers,
    /// GPU-timed: the scatter program, made on the first update that has writes.
    scatter: Option<crate::scatter::Scatter>,
    timing: Timing,
    /// Instances the buffers have room for.
    capacity: usize,
    len: usize,
    /// Every record has been written since the buffers were made.
    written: bool,
    /// Bytes the last update wrote (records, transforms, clock).
    pub last_upload_bytes: u64,
}

impl std::fmt::Debug for CrowdUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrowdUpload")
            .field("timing", &self.timing)
            .field("len", &self.len)
            .field("capacity", &self.capacity)
            .field("last_upload_bytes", &self.last_upload_bytes)
            .finish()
    }
}

fn copy_dst_storage(device: &wgpu::Device, label: &str, bytes: u64) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes.max(64),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    })
}

impl CrowdUpload {
    /// Empty buffers for a crowd played with `timing`.
    pub fn new(device: &wgpu::Device, timing: Timing) -> CrowdUpload {
        let mut u = CrowdUpload {
            buffers: CrowdBuffers {
                transforms: copy_dst_storage(device, "throng transforms", 0),
                records: copy_dst_storage(device, "throng playback records", 0),
                clock: None,
            },
            scatter: None,
            timing,
            capacity: 0,
            len: 0,
            written: false,
            last_upload_bytes: 0,
        };
        u.allocate(device, 1);
        u
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn record_size(&self) -> u64 {
        self.timing.record_bytes() as u64
    }

    fn allocate(&mut self, device: &wgpu::Device, capacity: usize) {
        let n = capacity as u64;
        let transform = std::mem::size_of::<InstanceTransform>() as u64;
        self.buffers.transforms = copy_dst_storage(device, "throng transforms", n * transform);
        self.buffers.records =
            copy_dst_storage(device, "throng playback records", n * self.record_size());
        self.buffers.clock = (self.timing == Timing::Gpu).then(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("throng clock"),
                size: std::mem::size_of::<TimingUniform>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        });
        self.capacity = capacity;
        self.written = false;
    }

    /// Whether an update of a crowd of `len` instances must send every record
    /// ([`RecordUpdate::All`]): the first one, after the count changed, or past the capacity.
    pub fn needs_all_records(&self, len: usize) -> bool {
        len > self.capacity || len != self.len || !self.written
    }

    /// Room for `n` instances; true when the buffers were reallocated (all must be written).
    fn reserve(&mut self, device: &wgpu::Device, n: usize) -> bool {
        if n <= self.capacity {
            return false;
        }
        self.allocate(device, n.max(self.capacity * 2));
        true
    }

    /// Checks an update, makes room for `n` records and writes the transforms when they (or
    /// the buffers) changed; true when every record must be written too.
    fn begin(
        &mut self,
        gpu: &crate::Gpu,
        timing: Timing,
        n: usize,
        transforms: &[InstanceTransform],
        transforms_changed: bool,
    ) -> Result<bool, RenderError> {
        self.check(timing, n, transforms.len())?;
        self.last_upload_bytes = 0;
        let all = self.reserve(&gpu.device, n) || n != self.len;
        self.len = n;
        if all || transforms_changed {
            let bytes = bytemuck::cast_slice(transforms);
            gpu.queue.write_buffer(&self.buffers.transforms, 0, bytes);
            self.last_upload_bytes += bytes.len() as u64;
        }
        Ok(all)
    }

    /// GPU-timed: sends the records (`update`: all of them, or the frame's changes, which a
    /// compute pass scatters — see [`RecordUpdate`]), the clock, and the transforms when
    /// `transforms_changed`. Returns the bytes written. Changes alone are refused with a typed
    /// error when [`Self::needs_all_records`] (the count changed, or nothing was sent yet).
    pub fn update_gpu_timed(
        &mut self,
        gpu: &crate::Gpu,
        update: RecordUpdate,
        transforms: &[InstanceTransform],
        transforms_changed: bool,
        clock: u32,
    ) -> Result<u64, RenderError> {
        let len = match update {
            RecordUpdate::All(r) => r.len(),
            RecordUpdate::Writes { len, .. } => len,
        };
        let all_needed = self.needs_all_records(len);
        if all_needed && matches!(update, RecordUpdate::Writes { .. }) {
            return Err(RenderError::BadInput {
                what: "every record (RecordUpdate::All, e.g. GpuRuntime::collect_records) for a \
                       first update or a changed instance count; record writes alone",
                got: len,
                expected: self.len,
            });
        }
        self.begin(gpu, Timing::Gpu, len, transforms, transforms_changed)?;
        let queue = &gpu.queue;
        match update {
            RecordUpdate::All(records) => {
                queue.write_buffer(&self.buffers.records, 0, bytemuck::cast_slice(records));
                self.last_upload_bytes += std::mem::size_of_val(records) as u64;
                self.written = true;
            }
            RecordUpdate::Writes { len, writes } => {
                if !writes.is_empty() {
                    let scatter = match &mut self.scatter {
                        Some(s) => s,
                        None => self
                            .scatter
                            .insert(crate::scatter::Scatter::new(&gpu.device)?),
                    };
                    self.last_upload_bytes +=
                        scatter.run(gpu, &self.buffers.records, len, writes)?;
                }
            }
        }
        if let Some(c) = &self.buffers.clock {
            queue.write_buffer(c, 0, bytemuck::bytes_of(&TimingUniform::new(clock)));
            self.last_upload_bytes += std::mem::size_of::<TimingUniform>() as u64;
        }
        Ok(self.last_upload_bytes)
    }

    /// Sends what a runtime changed (throng-runtime's `Runtime::record_changes`), whichever
    /// its timing: CPU-timed every record; GPU-timed every record when
    /// [`Self::needs_all_records`] (or no writes are given), else only the writes, and the
    /// clock. Writes the transforms when `transforms_changed`. Returns the bytes written.
    pub fn update(
        &mut self,
        gpu: &crate::Gpu,
        changes: RecordChanges,
        transforms: &[InstanceTransform],
        transforms_changed: bool,
    ) -> Result<u64, RenderError> {
        match changes.records {
            Records::Cpu(records) => {
                self.update_cpu_timed(gpu, records, transforms, transforms_changed)
            }
            Records::Gpu { records, clock } => {
                let update = match changes.writes {
                    Some(writes) if !self.needs_all_records(records.len()) => {
                        RecordUpdate::Writes {
                            len: records.len(),
                            writes,
                        }
                    }
                    _ => RecordUpdate::All(records),
                };
                self.update_gpu_timed(gpu, update, transforms, transforms_changed, clock)
            }
        }
    }

    /// CPU-timed: writes every record (they change each frame) and the transforms when
    /// `transforms_changed`. Returns the bytes written.
    pub fn update_cpu_timed(
        &mut self,
        gpu: &crate::Gpu,
        records: &[InstanceRecord],
        transforms: &[InstanceTransform],
        transforms_changed: bool,
    ) -> Result<u64, RenderError> {
        self.begin(
            gpu,
            Timing::Cpu,
            records.len(),
            transforms,
            transforms_changed,
        )?;
        let queue = &gpu.queue;
        if !records.is_empty() {
            queue.write_buffer(&self.buffers.records, 0, bytemuck::cast_slice(records));
            self.last_upload_bytes += std::mem::size_of_val(records) as u64;
        }
        Ok(self.last_upload_bytes)
    }

    /// CPU-timed, for records written on the GPU (`GraphPass::update_upload`): checks the
    /// update, makes room for `len` records, writes the transforms when `transforms_changed`,
    /// and returns the record buffer to copy the records into with the bytes uploaded so far.
    pub(crate) fn begin_gpu_written(
        &mut self,
        gpu: &crate::Gpu,
        len: usize,
        transforms: &[InstanceTransform],
        transforms_changed: bool,
    ) -> Result<(&wgpu::Buffer, u64), RenderError> {
        self.begin(gpu, Timing::Cpu, len, transforms, transforms_changed)?;
        Ok((&self.buffers.records, self.last_upload_bytes))
    }

    /// CPU-timed, written in place: `write` fills every record of a crowd of `len` instances
    /// straight into the queue's staging memory for the record buffer (e.g. `|out|
    /// runtime.update_into(dt, out)`), so the records are written once instead of into the
    /// runtime's array and then copied. Writes the transforms when `transforms_changed`.
    /// Returns the bytes written, or `write`'s error (the record buffer then holds whatever
    /// `write` left in the staging memory until the next update). Where the staging memory is not 16-byte aligned (no backend seen here), `write` fills
    /// an ordinary array that is copied.
    pub fn update_cpu_timed_in_place<E: From<RenderError>>(
        &mut self,
        gpu: &crate::Gpu,
        len: usize,
        transforms: &[InstanceTransform],
        transforms_changed: bool,
        write: impl FnOnce(&mut [InstanceRecord]) -> Result<(), E>,
    ) -> Result<u64, E> {
        self.begin(gpu, Timing::Cpu, len, transforms, transforms_changed)?;
        let record = std::mem::size_of::<InstanceRecord>();
        let Some(size) = wgpu::BufferSize::new((len * record) as u64) else {
            return write(&mut []).map(|()| self.last_upload_bytes);
        };
        let Some(mut view) = gpu.queue.write_buffer_with(&self.buffers.records, 0, size) else {
            return Err(RenderError::BadInput {
                what: "records the record buffer has room for",
                got: len,
                expected: self.capacity,
            }
            .into());
        };
        let mut bytes = view.slice(..);
        let ptr = bytes.as_raw_element_ptr().as_ptr();
        if ptr.align_offset(std::mem::align_of::<InstanceRecord>()) == 0 {
            // SAFETY: the view is a mapping of `len · 64` bytes, valid for writes and ours
            // alone until it is dropped (it is borrowed mutably here and not used again
            // before); it is aligned for `InstanceRecord` (checked above), whose every bit
            // pattern is valid (Pod). `write` stores into it (the runtime's plain and
            // non-temporal stores) and is documented never to read it, which matters only for
            // speed on write-combining memory, not for soundness.
            let out = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<InstanceRecord>(), len) };
            if let Err(e) = write(out) {
                self.written = false;
                return Err(e);
            }
        } else {
            let mut tmp = vec![InstanceRecord::default(); len];
            let r = write(&mut tmp);
            bytes.copy_from_slice(bytemuck::cast_slice(&tmp));
            if let Err(e) = r {
                self.written = false;
                return Err(e);
            }
        }
        drop(view);
        self.written = true;
        self.last_upload_bytes += (len * record) as u64;
        Ok(self.last_upload_bytes)
    }

    fn check(&self, timing: Timing, records: usize, transforms: usize) -> Result<(), RenderError> {
        if timing != self.timing {
            return Err(RenderError::BadInput {
                what: "records of the upload's timing (CPU-timed records for a CPU-timed upload)",
                got: records,
                expected: 0,
            });
        }
        if records != transforms {
            return Err(RenderError::BadInput {
                what: "instance records (one per transform)",
                got: records,
                expected: transforms,
            });
        }
        Ok(())
    }
}
