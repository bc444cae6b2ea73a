//! A prototype (issue 3): texture mirrors of every page's `rows` and `lanes` buffers, which
//! the evaluate pass reads instead of the buffers when `WGPU_TWEEN_TEXTURE_ROWS` is set when
//! the context's pipelines are built (`shaders/rows_tex.wgsl`).
//!
//! Why: on lavapipe a storage read costs a loop over the SIMD lanes per scalar component,
//! a 16-byte `textureLoad` about a third of one (`examples/access_probe.rs`). The buffers stay
//! the truth: the mirror is refilled whole by `copy_buffer_to_texture` after every update that
//! changed the buffers (row changes or a new table), which is exact but costs a full copy in
//! such frames; steady-state frames copy nothing.

use super::context::GpuError;
use super::executor::GpuExecutor;

/// Width in texels of a row texture (two texels per row); keep in sync with
/// `TEX_ROW_SHIFT` in `shaders/rows_tex.wgsl`.
const ROW_TEXELS: u32 = 1 << 11;
/// Width in texels of a lane texture (one `(from, to)` pair per texel); keep in sync with
/// `TEX_LANE_SHIFT`.
const LANE_TEXELS: u32 = 1 << 12;

/// The mirror of one page.
pub(crate) struct TexPage {
    rows: wgpu::Texture,
    lanes: wgpu::Texture,
    pub(super) rows_view: wgpu::TextureView,
    pub(super) lanes_view: wgpu::TextureView,
}

impl GpuExecutor {
    /// Remakes the mirror for a new table, and refills it if `changed` or remade (recorded
    /// after the row changes, before the evaluate pass).
    pub(super) fn sync_tex_mirror(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        changed: bool,
    ) -> Result<(), GpuError> {
        let Some(table) = &self.table else {
            return Ok(());
        };
        let stale = self.tex_generation != Some(self.table_generation)
            || self.tex_pages.len() != table.pages.len();
        if stale {
            let device = self.ctx.device();
            let mut pages = Vec::with_capacity(table.pages.len());
            for page in &table.pages {
                // Rows: 2 texels each; lanes: 4 sections of `capacity` pairs.
                if (2 * u64::from(page.capacity)) % u64::from(ROW_TEXELS) != 0 {
                    return Err(GpuError::Validation(
                        "texture mirror: page capacity below 1024 rows".into(),
                    ));
                }
                let texture = |label, format, width: u32, texels: u32| {
                    device.create_texture(&wgpu::TextureDescriptor {
                        label: Some(label),
                        size: wgpu::Extent3d {
                            width,
                            height: texels / width,
                            depth_or_array_layers: 1,
                        },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format,
                        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                        view_formats: &[],
                    })
                };
                let rows = texture(
                    "wgpu-tween rows mirror",
                    wgpu::TextureFormat::Rgba32Uint,
                    ROW_TEXELS,
                    2 * page.capacity,
                );
                let lanes = texture(
                    "wgpu-tween lanes mirror",
                    wgpu::TextureFormat::Rg32Float,
                    LANE_TEXELS,
                    4 * page.capacity,
                );
                pages.push(TexPage {
                    rows_view: rows.create_view(&Default::default()),
                    lanes_view: lanes.create_view(&Default::default()),
                    rows,
                    lanes,
                });
            }
            self.tex_pages = pages;
            self.tex_generation = Some(self.table_generation);
            self.evaluate_groups.clear();
        }
        if !(changed || stale) {
            return Ok(());
        }
        for (page, tex) in table.pages.iter().zip(&self.tex_pages) {
            for (buffer, texture, texel_bytes) in
                [(&page.rows, &tex.rows, 16), (&page.lanes, &tex.lanes, 8)]
            {
                let size = texture.size();
                encoder.copy_buffer_to_texture(
                    wgpu::TexelCopyBufferInfo {
                        buffer,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(size.width * texel_bytes),
                            rows_per_image: Some(size.height),
                        },
                    },
                    wgpu::TexelCopyTextureInfo {
                        texture,
                        mip_level: 0,
                        origin: wgpu::Origin3d::ZERO,
                        aspect: wgpu::TextureAspect::All,
                    },
                    size,
                );
            }
        }
        Ok(())
    }
}
