// The 31 standard eases (easings.net), a line-for-line port of src/ease.rs.
// Keep the ids in sync with the `Ease` discriminants.

const PI: f32 = 3.14159265358979;
const BACK_C1: f32 = 1.70158;
const BACK_C2: f32 = 2.5949095; // c1 * 1.525
const BACK_C3: f32 = 2.70158;   // c1 + 1
const ELASTIC_C4: f32 = 2.0943951; // 2π / 3
const ELASTIC_C5: f32 = 1.3962634; // 2π / 4.5
const BOUNCE_N1: f32 = 7.5625;
const BOUNCE_D1: f32 = 2.75;

fn pow2(x: f32) -> f32 { return x * x; }
fn pow3(x: f32) -> f32 { return x * x * x; }
fn pow5(x: f32) -> f32 { let x2 = x * x; return x2 * x2 * x; }
fn sqrt_clamped(x: f32) -> f32 { return sqrt(max(x, 0.0)); }

fn out_bounce(x_in: f32) -> f32 {
    var x = x_in;
    if x < 1.0 / BOUNCE_D1 {
        return BOUNCE_N1 * x * x;
    } else if x < 2.0 / BOUNCE_D1 {
        x -= 1.5 / BOUNCE_D1;
        return BOUNCE_N1 * x * x + 0.75;
    } else if x < 2.5 / BOUNCE_D1 {
        x -= 2.25 / BOUNCE_D1;
        return BOUNCE_N1 * x * x + 0.9375;
    }
    x -= 2.625 / BOUNCE_D1;
    return BOUNCE_N1 * x * x + 0.984375;
}

fn ease(id: u32, x: f32) -> f32 {
    switch id {
        case 0u: { return x; }
        case 1u: { return 1.0 - cos((x * PI) / 2.0); }
        case 2u: { return sin((x * PI) / 2.0); }
        case 3u: { return -(cos(PI * x) - 1.0) / 2.0; }
        case 4u: { return x * x; }
        case 5u: { return 1.0 - (1.0 - x) * (1.0 - x); }
        case 6u: { return select(1.0 - pow2(-2.0 * x + 2.0) / 2.0, 2.0 * x * x, x < 0.5); }
        case 7u: { return x * x * x; }
        case 8u: { return 1.0 - pow3(1.0 - x); }
        case 9u: { return select(1.0 - pow3(-2.0 * x + 2.0) / 2.0, 4.0 * x * x * x, x < 0.5); }
        case 10u: { return pow2(x * x); }
        case 11u: { return 1.0 - pow2(pow2(1.0 - x)); }
        case 12u: { return select(1.0 - pow2(pow2(-2.0 * x + 2.0)) / 2.0, 8.0 * pow2(x * x), x < 0.5); }
        case 13u: { return pow2(x * x) * x; }
        case 14u: { return 1.0 - pow5(1.0 - x); }
        case 15u: { return select(1.0 - pow5(-2.0 * x + 2.0) / 2.0, 16.0 * pow5(x), x < 0.5); }
        case 16u: { return select(exp2(10.0 * x - 10.0), 0.0, x == 0.0); }
        case 17u: { return select(1.0 - exp2(-10.0 * x), 1.0, x == 1.0); }
        case 18u: {
            if x == 0.0 { return 0.0; }
            if x == 1.0 { return 1.0; }
            if x < 0.5 { return exp2(20.0 * x - 10.0) / 2.0; }
            return (2.0 - exp2(-20.0 * x + 10.0)) / 2.0;
        }
        case 19u: { return 1.0 - sqrt_clamped(1.0 - x * x); }
        case 20u: { return sqrt_clamped(1.0 - pow2(x - 1.0)); }
        case 21u: {
            if x < 0.5 { return (1.0 - sqrt_clamped(1.0 - pow2(2.0 * x))) / 2.0; }
            return (sqrt_clamped(1.0 - pow2(-2.0 * x + 2.0)) + 1.0) / 2.0;
        }
        case 22u: {
            if x == 0.0 { return 0.0; }
            if x == 1.0 { return 1.0; }
            return -exp2(10.0 * x - 10.0) * sin((x * 10.0 - 10.75) * ELASTIC_C4);
        }
        case 23u: {
            if x == 0.0 { return 0.0; }
            if x == 1.0 { return 1.0; }
            return exp2(-10.0 * x) * sin((x * 10.0 - 0.75) * ELASTIC_C4) + 1.0;
        }
        case 24u: {
            if x == 0.0 { return 0.0; }
            if x == 1.0 { return 1.0; }
            if x < 0.5 { return -(exp2(20.0 * x - 10.0) * sin((20.0 * x - 11.125) * ELASTIC_C5)) / 2.0; }
            return (exp2(-20.0 * x + 10.0) * sin((20.0 * x - 11.125) * ELASTIC_C5)) / 2.0 + 1.0;
        }
        case 25u: { return BACK_C3 * x * x * x - BACK_C1 * x * x; }
        case 26u: { return 1.0 + BACK_C3 * pow3(x - 1.0) + BACK_C1 * pow2(x - 1.0); }
        case 27u: {
            if x < 0.5 { return (pow2(2.0 * x) * ((BACK_C2 + 1.0) * 2.0 * x - BACK_C2)) / 2.0; }
            return (pow2(2.0 * x - 2.0) * ((BACK_C2 + 1.0) * (x * 2.0 - 2.0) + BACK_C2) + 2.0) / 2.0;
        }
        case 28u: { return 1.0 - out_bounce(1.0 - x); }
        case 29u: { return out_bounce(x); }
        case 30u: {
            if x < 0.5 { return (1.0 - out_bounce(1.0 - 2.0 * x)) / 2.0; }
            return (1.0 + out_bounce(2.0 * x - 1.0)) / 2.0;
        }
        default: { return x; }
    }
}
