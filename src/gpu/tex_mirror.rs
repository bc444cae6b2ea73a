//! The texture mirror of the row table: per page, its `rows` and `lanes` buffers copied into
//! two textures, which the evaluate pass reads instead of the buffers
//! (`shaders/rows_tex.wgsl`) where [`RowStorage::Textures`] is chosen.
//!
//! Why: lavapipe loads a storage value with a loop over the SIMD lanes per scalar component,
//! about 3.5 ns per invocation each, while a 16-byte `textureLoad` costs about 1.3 ns
//! (`examples/access_probe.rs`); a plain row's evaluation reads 16 bytes of row and one lane
//! pair. With texture reads the evaluate pass of 1M plain motions went from about 2.4× the
//! lerp kernel to about 1.5× (1.4–1.6× over runs) on lavapipe (`examples/evaluate_ratio.rs`
//! measures both). The cost: 64 more bytes of GPU memory per row of capacity, and every row
//! a frame changes is written twice (about 130 ns more per uploaded row on lavapipe).
//!
//! The buffers stay the truth and the mirror follows them exactly: the apply pass writes
//! every row and lane pair it writes to the buffers into the mirror too
//! (`shaders/apply_mirror.wgsl`), and a new table (growth, shrink, new pages) gets a new
//! mirror, filled by `copy_buffer_to_texture` after the frame's changes. The textures hold the
//! buffers' bytes unchanged (integer formats), texel by texel in buffer order, row by row.

use super::context::GpuError;
use super::executor::GpuExecutor;

/// How the evaluate pass reads rows and lane pairs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowReads {
    /// Storage buffers as 32-bit words (`rows32.wgsl`).
    Buffers32,
    /// Storage buffers as 64-bit words (`rows64.wgsl`, devices with `SHADER_INT64`).
    Buffers64,
    /// The texture mirror (`rows_tex.wgsl`).
    Textures,
}

/// log2 of the width in texels of a mirror texture of more than that many texels (fewer
/// make one row): the WebGPU default of `max_texture_dimension_2d`. A constant, so the shaders
/// find a texel with a mask and a shift; keep in sync with `MIRROR_WIDTH_SHIFT` in
/// `shaders/types.wgsl`.
const WIDTH_SHIFT: u32 = 13;

/// Most rows of a page with a mirror: its 4 lane sections must fit 2^13 × 2^13 texels.
pub(super) const MAX_MIRROR_PAGE_ROWS: u32 = 1 << (2 * WIDTH_SHIFT - 2);

const ROW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Uint;
const LANE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;

/// How the evaluate pass reads the motion table, chosen per [`GpuContext`](super::GpuContext)
/// with [`GpuContext::with_row_storage`](super::GpuContext::with_row_storage).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowStorage {
    /// Textures on software adapters (lavapipe), where they are faster (about 1.1× the
    /// lerp kernel at 1M motions against 2.2× with buffers); buffers elsewhere, which have
    /// not been measured slower. `WGPU_TWEEN_ROW_READS=buffer|texture` overrides this
    /// choice (and only this one).
    #[default]
    Auto,
    /// The table's storage buffers, as 64-bit words where the device has `SHADER_INT64`.
    Buffers,
    /// A texture mirror of the table, which the executor keeps equal to the buffers: 64
    /// more bytes of GPU memory per row of capacity, and each uploaded or moved row is
    /// written twice. Devices that cannot keep one (fewer than two storage textures per
    /// stage, 2D textures under 8192 texels, or no `Rgba32Uint`/`Rg32Uint` storage) read the
    /// buffers.
    Textures,
}

impl RowStorage {
    /// What `Auto` means for this adapter and environment; the others as they are.
    fn resolve(self, info: &wgpu::AdapterInfo) -> Self {
        match (self, std::env::var("WGPU_TWEEN_ROW_READS").as_deref()) {
            (Self::Auto, Ok("texture")) => Self::Textures,
            (Self::Auto, Ok("buffer")) => Self::Buffers,
            (Self::Auto, _) if info.device_type == wgpu::DeviceType::Cpu => Self::Textures,
            (Self::Auto, _) => Self::Buffers,
            (chosen, _) => chosen,
        }
    }
}

impl RowReads {
    /// The reads for a device and a [`RowStorage`] choice: textures where chosen (or
    /// resolved from `Auto`) and the device can keep a mirror, else buffers, as 64-bit words
    /// where the device has them.
    pub fn choose(device: &wgpu::Device, info: &wgpu::AdapterInfo, storage: RowStorage) -> Self {
        if storage.resolve(info) == RowStorage::Textures && mirror_supported(device) {
            Self::Textures
        } else if device.features().contains(wgpu::Features::SHADER_INT64) {
            Self::Buffers64
        } else {
            Self::Buffers32
        }
    }

    /// The storage these reads use.
    pub fn storage(self) -> RowStorage {
        match self {
            Self::Textures => RowStorage::Textures,
            Self::Buffers32 | Self::Buffers64 => RowStorage::Buffers,
        }
    }
}

/// Whether `device` can keep a mirror: two storage textures in the apply pass, textures
/// 2^13 texels wide, and both formats as sampled and write-only storage textures.
fn mirror_supported(device: &wgpu::Device) -> bool {
    let limits = device.limits();
    let usages = wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING;
    limits.max_storage_textures_per_shader_stage >= 2
        && limits.max_texture_dimension_2d >= 1 << WIDTH_SHIFT
        && [ROW_FORMAT, LANE_FORMAT].iter().all(|f| {
            f.guaranteed_format_features(device.features())
                .allowed_usages
                .contains(usages)
        })
}

/// The mirror of one page.
pub(crate) struct MirrorPage {
    rows: wgpu::Texture,
    lanes: wgpu::Texture,
    pub(super) rows_view: wgpu::TextureView,
    pub(super) lanes_view: wgpu::TextureView,
}

/// The texture for `texels` texels of `format` (a power of two), row by row.
fn texture(device: &wgpu::Device, format: wgpu::TextureFormat, texels: u32) -> wgpu::Texture {
    let width = texels.min(1 << WIDTH_SHIFT);
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("wgpu-tween mirror"),
        size: wgpu::Extent3d {
            width,
            height: texels / width,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::TEXTURE_BINDING
            | wgpu::TextureUsages::STORAGE_BINDING
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Buffer bytes of one texture row (none for a texture of one row, which needs none and
/// may be narrower than the copy alignment).
fn bytes_per_row(texture: &wgpu::Texture) -> Option<u32> {
    let size = texture.size();
    let texel = texture.format().block_copy_size(None).unwrap_or(0);
    (size.height > 1).then_some(size.width * texel)
}

fn buffer_copy<'a>(
    buffer: &'a wgpu::Buffer,
    texture: &wgpu::Texture,
) -> wgpu::TexelCopyBufferInfo<'a> {
    wgpu::TexelCopyBufferInfo {
        buffer,
        layout: wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: bytes_per_row(texture),
            rows_per_image: None,
        },
    }
}

impl GpuExecutor {
    /// Whether the evaluate pass reads the texture mirror.
    pub(super) fn mirrored(&self) -> bool {
        self.pipelines.row_reads == RowReads::Textures
    }

    /// Gives a new table (or one whose pages changed) a new mirror, to be filled by
    /// [`Self::fill_mirror`]; drops the mirror with the table. Call after every change of
    /// the table, before the frame's row changes are recorded (the apply pass writes into
    /// the mirror).
    pub(super) fn sync_mirror(&mut self) -> Result<(), GpuError> {
        if !self.mirrored() {
            return Ok(());
        }
        let Some(table) = &self.table else {
            self.mirror.clear();
            self.mirror_generation = None;
            return Ok(());
        };
        if self.mirror_generation == Some(self.table_generation)
            && self.mirror.len() == table.pages.len()
        {
            return Ok(());
        }
        let device = self.ctx.device();
        let mut pages = Vec::with_capacity(table.pages.len());
        for page in &table.pages {
            let capacity = page.capacity;
            if !capacity.is_power_of_two() || capacity > MAX_MIRROR_PAGE_ROWS {
                return Err(GpuError::Validation(format!(
                    "no texture mirror for a page of {capacity} rows"
                )));
            }
            let rows = texture(device, ROW_FORMAT, 2 * capacity);
            let lanes = texture(device, LANE_FORMAT, 4 * capacity);
            pages.push(MirrorPage {
                rows_view: rows.create_view(&Default::default()),
                lanes_view: lanes.create_view(&Default::default()),
                rows,
                lanes,
            });
        }
        self.mirror = pages;
        self.mirror_generation = Some(self.table_generation);
        self.mirror_unfilled = true;
        self.evaluate_groups.clear();
        Ok(())
    }

    /// Fills a new mirror from the buffers (recorded after the frame's changes, so it holds
    /// them; the whole buffers, rows past the table's length included, which no pass reads).
    pub(super) fn fill_mirror(&mut self, encoder: &mut wgpu::CommandEncoder) {
        if !self.mirror_unfilled {
            return;
        }
        let Some(table) = &self.table else {
            return;
        };
        for (page, mirror) in table.pages.iter().zip(&self.mirror) {
            for (buffer, texture) in [(&page.rows, &mirror.rows), (&page.lanes, &mirror.lanes)] {
                encoder.copy_buffer_to_texture(
                    buffer_copy(buffer, texture),
                    texture.as_image_copy(),
                    texture.size(),
                );
            }
        }
        self.mirror_unfilled = false;
    }

    /// The mirror's bindings for the evaluate pass (7, 8) or the apply pass (8, 9) of
    /// `page`.
    pub(super) fn mirror_entries(&self, page: usize, first: u32) -> Vec<wgpu::BindGroupEntry<'_>> {
        self.mirror.get(page).map_or_else(Vec::new, |m| {
            vec![
                wgpu::BindGroupEntry {
                    binding: first,
                    resource: wgpu::BindingResource::TextureView(&m.rows_view),
                },
                wgpu::BindGroupEntry {
                    binding: first + 1,
                    resource: wgpu::BindingResource::TextureView(&m.lanes_view),
                },
            ]
        })
    }

    /// Whether the mirror holds the buffers' bytes for every row the table holds (rows and
    /// the four lane sections); `None` without a mirror. Blocks; for tests.
    pub fn mirror_matches(&self) -> Result<Option<bool>, GpuError> {
        let (Some(table), true) = (&self.table, self.mirrored()) else {
            return Ok(None);
        };
        if self.mirror.len() != table.pages.len() || self.mirror_unfilled {
            return Ok(Some(false));
        }
        let device = self.ctx.device();
        let mut same = true;
        for (p, (page, mirror)) in table.pages.iter().zip(&self.mirror).enumerate() {
            let base = p as u64 * u64::from(self.page_rows);
            let rows = u64::from(table.len)
                .saturating_sub(base)
                .min(u64::from(page.capacity));
            let read = |buffer: &wgpu::Buffer, texture: &wgpu::Texture| {
                let size = buffer.size();
                let staging = |label| {
                    device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        size,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                };
                let (from_buffer, from_texture) =
                    (staging("mirror check"), staging("mirror check"));
                let mut encoder = device.create_command_encoder(&Default::default());
                encoder.copy_buffer_to_buffer(buffer, 0, &from_buffer, 0, size);
                encoder.copy_texture_to_buffer(
                    texture.as_image_copy(),
                    wgpu::TexelCopyBufferInfo {
                        buffer: &from_texture,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: bytes_per_row(texture),
                            rows_per_image: None,
                        },
                    },
                    texture.size(),
                );
                self.ctx.queue().submit([encoder.finish()]);
                let (sender, receiver) = std::sync::mpsc::channel();
                for b in [&from_buffer, &from_texture] {
                    let sender = sender.clone();
                    b.slice(..)
                        .map_async(wgpu::MapMode::Read, move |r| drop(sender.send(r)));
                }
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(|e| GpuError::Validation(e.to_string()))?;
                for _ in 0..2 {
                    match receiver.try_recv() {
                        Ok(Ok(())) => {}
                        _ => return Err(GpuError::Validation("mirror check: no mapping".into())),
                    }
                }
                let bytes = |b: &wgpu::Buffer| {
                    b.slice(..)
                        .get_mapped_range()
                        .map(|view| view.to_vec())
                        .map_err(|e| GpuError::Validation(format!("mirror check: {e:?}")))
                };
                let (a, b) = (bytes(&from_buffer)?, bytes(&from_texture)?);
                Ok::<_, GpuError>((a, b))
            };
            let (a, b) = read(&page.rows, &mirror.rows)?;
            same &= a[..(rows * 32) as usize] == b[..(rows * 32) as usize];
            let (a, b) = read(&page.lanes, &mirror.lanes)?;
            let stride = u64::from(page.capacity) * 8;
            for k in 0..4 {
                let range = (k * stride) as usize..(k * stride + rows * 8) as usize;
                same &= a[range.clone()] == b[range];
            }
        }
        Ok(Some(same))
    }
}
