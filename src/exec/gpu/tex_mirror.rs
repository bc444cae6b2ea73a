//! The texture mirror of the row table: per page, its `rows` and `lanes` buffers copied into
//! two `Rgba32Uint` textures, which the evaluate pass reads instead of the buffers
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
//! Layout: row i is texels 2i and 2i + 1 of the row texture (the row buffer's bytes in
//! order); lanes 0 and 1 of row i are texel i of the lane texture, lanes 2 and 3 texel
//! `capacity + i` ([`LANES_PER_TEXEL`] pairs per texel, `lane_texel` in
//! `shaders/types.wgsl`), so a row of one or two lanes is one 16-byte load and a row of three
//! or four (quaternions, colors) two instead of four. On lavapipe that took the mixed world of
//! issue 4 (f32, Vec3, Quat, Color) from 2.13–2.45× to 1.78–1.94× the all-f32 world at 100k
//! and from 2.31–2.61× to 1.98–2.04× at 1M (medians of two sets of runs of
//! `examples/evaluate_ratio.rs`, alternating with the build of one 8-byte texel per lane
//! pair); the all-f32 world stayed at 1.1× the lerp kernel.
//!
//! The buffers stay the truth and the mirror follows them exactly: the apply pass writes
//! every row and lane pair it writes to the buffers into the mirror too, whole texels only
//! (a row is always written with all four of its lanes; `shaders/apply_mirror.wgsl`), and a
//! new table (growth, shrink, new pages) gets a new mirror, filled after the frame's changes:
//! the rows by `copy_buffer_to_texture`, the lanes by a small pass that interleaves the lane
//! sections (`shaders/mirror_fill.wgsl`). The textures hold the buffers' bytes unchanged
//! (integer formats).

use super::context::GpuError;
use super::executor::{whole, GpuExecutor, SMALL_GROUP};
use super::layout::fold_dispatch;

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

/// Most rows of a page with a mirror: its textures, two texels per row each, must fit
/// 2^13 × 2^13 texels (a quarter of that, as when a lane pair took a texel of its own).
pub(super) const MAX_MIRROR_PAGE_ROWS: u32 = 1 << (2 * WIDTH_SHIFT - 2);

/// Lane pairs per texel of the lane texture: lanes 2h and 2h + 1 of a row share texel
/// `h · capacity + row`. Keep in sync with `lane_texel` in `shaders/types.wgsl`.
const LANES_PER_TEXEL: u32 = 2;

const ROW_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Uint;
const LANE_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Uint;

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
    /// stage, 2D textures under 8192 texels, or no `Rgba32Uint` storage) read the buffers.
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
/// 2^13 texels wide, and the format as sampled and write-only storage textures.
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
    /// The page's row buffer it mirrors: a page the table keeps through a resize (paged
    /// tables keep every page that does not change size) keeps its mirror too.
    source: wgpu::Buffer,
    /// Whether it holds its page's bytes yet (`fill_mirror`).
    filled: bool,
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
        let mut old = std::mem::take(&mut self.mirror).into_iter();
        let mut pages = Vec::with_capacity(table.pages.len());
        for page in &table.pages {
            if let Some(kept) = old.next().filter(|m| m.source == page.rows) {
                pages.push(kept);
                continue;
            }
            let capacity = page.capacity;
            if !capacity.is_power_of_two() || capacity > MAX_MIRROR_PAGE_ROWS {
                return Err(GpuError::Validation(format!(
                    "no texture mirror for a page of {capacity} rows"
                )));
            }
            let rows = texture(device, ROW_FORMAT, 2 * capacity);
            let lanes = texture(device, LANE_FORMAT, 4 / LANES_PER_TEXEL * capacity);
            pages.push(MirrorPage {
                rows_view: rows.create_view(&Default::default()),
                lanes_view: lanes.create_view(&Default::default()),
                rows,
                lanes,
                source: page.rows.clone(),
                filled: false,
            });
        }
        self.mirror = pages;
        self.mirror_generation = Some(self.table_generation);
        self.evaluate_groups.clear();
        Ok(())
    }

    /// Fills a new mirror from the buffers (recorded after the frame's changes, so it holds
    /// them; the whole buffers, rows past the table's length included, which no pass reads):
    /// the rows by a copy, the lanes by the fill pass, which interleaves their sections.
    pub(super) fn fill_mirror(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
    ) -> Result<(), GpuError> {
        if self.mirror.iter().all(|m| m.filled) {
            return Ok(());
        }
        let Some(table) = &self.table else {
            return Ok(());
        };
        let Some((fill, fill_layout)) = &self.pipelines.mirror_fill else {
            return Err(GpuError::Validation("no mirror fill pipeline".into()));
        };
        let device = self.ctx.device();
        for (page, mirror) in table.pages.iter().zip(&mut self.mirror) {
            if mirror.filled {
                continue;
            }
            mirror.filled = true;
            encoder.copy_buffer_to_texture(
                buffer_copy(&page.rows, &mirror.rows),
                mirror.rows.as_image_copy(),
                mirror.rows.size(),
            );
            let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("wgpu-tween mirror fill"),
                layout: fill_layout,
                entries: &[
                    whole(0, &page.lanes),
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&mirror.lanes_view),
                    },
                ],
            });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("wgpu-tween mirror fill"),
                timestamp_writes: None,
            });
            pass.set_pipeline(fill);
            pass.set_bind_group(0, &group, &[]);
            let (x, y) = fold_dispatch(page.capacity, SMALL_GROUP, self.max_per_axis);
            pass.dispatch_workgroups(x, y, 1);
            self.stats.dispatches += 1;
        }
        Ok(())
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
        if self.mirror.len() != table.pages.len() || self.mirror.iter().any(|m| !m.filled) {
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
            same &= lanes_match(&a, &b, page.capacity as usize, rows as usize);
        }
        Ok(Some(same))
    }
}

/// Whether the lane texture's bytes `texels` (texel by texel) hold the lane buffer's bytes
/// `buffer` (4 sections of `capacity` pairs of 8 bytes) for rows `0..rows`: texel
/// `h · capacity + i` is lane pair 2h of row i, then lane pair 2h + 1.
fn lanes_match(buffer: &[u8], texels: &[u8], capacity: usize, rows: usize) -> bool {
    const PAIR: usize = 8;
    const TEXEL: usize = PAIR * LANES_PER_TEXEL as usize;
    if buffer.len() < 4 * capacity * PAIR || texels.len() < 2 * capacity * TEXEL {
        return false;
    }
    (0..rows).all(|i| {
        (0..4).all(|k| {
            let pair = &buffer[(k * capacity + i) * PAIR..][..PAIR];
            let texel = ((k / 2) * capacity + i) * TEXEL + (k % 2) * PAIR;
            pair == &texels[texel..][..PAIR]
        })
    })
}

#[cfg(test)]
mod tests {
    use super::lanes_match;

    /// A lane buffer of `capacity` rows whose every byte says which lane, row and byte it is.
    fn buffer(capacity: usize) -> Vec<u8> {
        (0..4 * capacity * 8)
            .map(|b| (b / 8 % capacity * 16 + b / 8 / capacity * 8 + b % 8) as u8)
            .collect()
    }

    /// The packing written out by hand: per row i, lanes (0, 1) at texel i, (2, 3) at texel
    /// capacity + i.
    fn packed(buffer: &[u8], capacity: usize) -> Vec<u8> {
        let mut texels = vec![0; buffer.len()];
        for i in 0..capacity {
            for (texel, lanes) in [(i, [0, 1]), (capacity + i, [2, 3])] {
                for (half, k) in lanes.into_iter().enumerate() {
                    let src = (k * capacity + i) * 8;
                    texels[texel * 16 + half * 8..][..8].copy_from_slice(&buffer[src..src + 8]);
                }
            }
        }
        texels
    }

    #[test]
    fn the_check_accepts_the_packing_and_nothing_else() {
        let capacity = 8;
        let lanes = buffer(capacity);
        let texels = packed(&lanes, capacity);
        assert!(lanes_match(&lanes, &texels, capacity, capacity));
        // The buffer's own order (one pair per texel), as a plain copy would leave it.
        assert!(!lanes_match(&lanes, &lanes, capacity, capacity));
        // The two pairs of one texel swapped.
        let mut swapped = texels.clone();
        let (low, high) = swapped[16 * 3..16 * 4].split_at_mut(8);
        low.swap_with_slice(high);
        assert!(!lanes_match(&lanes, &swapped, capacity, capacity));
        // One byte of lane 3 of the last row: wrong there, ignored past the rows checked.
        let mut stale = texels.clone();
        stale[(2 * capacity - 1) * 16 + 15] ^= 1;
        assert!(!lanes_match(&lanes, &stale, capacity, capacity));
        assert!(lanes_match(&lanes, &stale, capacity, capacity - 1));
    }
}
