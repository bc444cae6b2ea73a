// The scatter into a packed target: params.format 1 = TargetFormat::Unorm8 (a byte per
// lane, pack4x8unorm's formula), 2 = TargetFormat::Float16 (a half per lane). Lane k goes
// to unit first + k; units fill a u32 from its low bits. Words the motion fills whole are
// stored; a part-filled word is merged by compare-exchange, since another motion may write
// its other units in the same dispatch.

@group(0) @binding(3) var<storage, read_write> words: array<atomic<u32>>;

fn pack_unit(x: f32) -> u32 {
    if params.format == 1u {
        return u32(floor(0.5 + 255.0 * clamp(x, 0.0, 1.0)));
    }
    return half_bits(clamp(x, -65504.0, 65504.0));
}

// The IEEE half nearest a finite f32 within ±65504, ties to even (by hand: pack2x16float
// needs a capability downlevel devices lack, and leaves the rounding to the device).
fn half_bits(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    let sign = (b >> 16u) & 0x8000u;
    let e = i32((b >> 23u) & 0xffu) - 112; // the half's biased exponent
    var m = b & 0x7fffffu;
    var shift = 13u;
    var half = 0u;
    if e > 0 {
        half = u32(e) << 10u;
    } else {
        // A subnormal half (or zero): the mantissa with its implicit 1, shifted further.
        if e < -10 {
            return sign;
        }
        m |= 0x800000u;
        shift = u32(14 - e);
    }
    half |= m >> shift;
    let rest = m & ((1u << shift) - 1u);
    let mid = 1u << (shift - 1u);
    // (A carry out of the mantissa steps the exponent, as it should.)
    return sign | (half + u32(rest > mid || (rest == mid && (half & 1u) == 1u)));
}

@compute @workgroup_size(64)
fn scatter_packed(@builtin(global_invocation_id) gid: vec3<u32>) {
    let job = scatter_job(gid);
    if !job.live {
        return;
    }
    let bits = select(16u, 8u, params.format == 1u);
    let per_word = 32u / bits;
    let unit_mask = (1u << bits) - 1u;
    var k = 0u;
    while k < job.lanes {
        let word = (job.first + k) / per_word;
        var packed = 0u;
        var mask = 0u;
        while k < job.lanes && (job.first + k) / per_word == word {
            let shift = ((job.first + k) % per_word) * bits;
            packed |= pack_unit(scatter_lane(job, k)) << shift;
            mask |= unit_mask << shift;
            k++;
        }
        if mask == 0xffffffffu {
            atomicStore(&words[word], packed);
        } else {
            var old = atomicLoad(&words[word]);
            loop {
                let swap = atomicCompareExchangeWeak(&words[word], old, (old & ~mask) | packed);
                if swap.exchanged {
                    break;
                }
                old = swap.old_value;
            }
        }
    }
}
