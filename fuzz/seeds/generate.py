#!/usr/bin/env python3
"""Writes the seed corpus (fuzz/seeds/<target>/*.bin) in the encoding of fuzz/src/interp.rs.

Each seed is a small, readable program that reaches one area (errors, callbacks, panics,
commands, clears, odd numbers), so the fuzzer starts from meaningful inputs and
tests/model/fuzz_corpus.rs replays them in every `cargo test`. Run from anywhere:

    python3 fuzz/seeds/generate.py
"""

import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- numbers (Bytes::f32/f64)


def f32s(v):
    """Sixteenths 0..255/16 (tag 10)."""
    n = int(round(v * 16))
    assert 0 <= n <= 255, v
    return bytes([10, n])


def f32neg(v):
    """-n/16 (tag 8)."""
    n = int(round(-v * 16))
    assert 0 <= n <= 255, v
    return bytes([8, n])


def f32raw(x):
    return bytes([0]) + struct.pack("<f", x)


F32_ZERO, F32_NEGZERO, F32_NAN, F32_INF, F32_NINF, F32_MAX, F32_DENORM = (
    bytes([t]) for t in range(1, 8)
)


def f64s(v):
    n = int(round(v * 16))
    assert 0 <= n <= 255, v
    return bytes([10, n])


def f64neg(v):
    n = int(round(-v * 16))
    assert 0 <= n <= 255, v
    return bytes([8, n])


def f64raw(x):
    return bytes([0]) + struct.pack("<d", x)


F64_ZERO, F64_NEGZERO, F64_NAN, F64_INF, F64_NINF, F64_MAX, F64_HUGE = (
    bytes([t]) for t in range(1, 8)
)

# ---------------------------------------------------------------- building blocks

EASES = 31
RESTART, FLIP, INCREMENTAL, YOYO = range(4)
SCALED, UNSCALED, REALTIME = range(3)


def loops(n):
    if n == -1:
        return bytes([0])
    if 0 <= n <= 5:
        return bytes([2, n])
    return bytes([1]) + struct.pack("<i", n)


def builder(duration, ease=None, delay=None, delay_with=None, loop=None, speed=None,
            time_kind=None, preserve=False, flags=None):
    """Motion::new(.., duration) and settings, in interp::builder's order."""
    settings = 0
    tail = b""
    if ease is not None:
        settings |= 1
        tail += bytes([ease])
    if delay is not None:
        settings |= 2
        tail += delay
    if delay_with is not None:
        d, every, skip = delay_with
        settings |= 4
        tail += d + bytes([int(every), int(skip)])
    if loop is not None:
        n, kind = loop
        settings |= 8
        tail += loops(n) + bytes([kind])
    if speed is not None:
        settings |= 16
        tail += speed
    if time_kind is not None:
        settings |= 32
        tail += bytes([time_kind])
    if preserve:
        settings |= 64
    if flags is not None:
        immediate, cancel_on_error = flags
        settings |= 128
        tail += bytes([int(immediate), int(cancel_on_error)])
    return duration + bytes([settings]) + tail


def reaction(trigger, kind, target=0, time=None, speed=None):
    """trigger: 0 bind, 1 complete, 2 cancel, 3 loop. kind % 8: 0 cancel, 1 complete,
    2 set_time, 3 set_speed, 4 preserve, 5 clear, 6/7 spawn (+8: the child reacts too)."""
    return (trigger, bytes([kind]) + struct.pack("<I", target) + (time or f64s(0.5))
            + (speed or f32s(1.0)))


def callbacks(bind=False, complete=False, cancel=False, loop=False, panics=None,
              react=None, deferred=False):
    flags = int(bind) | 4 * int(complete) | 8 * int(cancel) | 16 * int(loop)
    tail = b""
    if react is not None:
        flags |= 0x80
        trigger, body = react
        tail += bytes([trigger]) + body
    if panics is not None:
        flags |= 2
        tail += bytes([panics])
    return bytes([flags]) + tail + bytes([0 if deferred else 1])


def create(frm, to, build, cbs=None):
    return bytes([0]) + frm + to + build + (cbs or callbacks())


def create_vec(lanes, frm, to, build, cbs=None):
    """lanes: 2, 3 or 4 (Vec2, Vec3, Vec4); frm/to: four f32 encodings each."""
    which = {2: 0, 3: 1, 4: 2}[lanes]
    return bytes([3]) + b"".join(frm) + b"".join(to) + bytes([which]) + build + (
        cbs or callbacks())


def update(dt):
    return bytes([4]) + dt


def update_with(a, b, c):
    return bytes([7]) + a + b + c


def handle(k):
    if k == "none":
        return bytes([255])
    if k == "foreign":
        return bytes([254])
    return bytes([0]) + struct.pack("<I", k)


def cancel(k, plain=True):
    return bytes([8]) + handle(k) + bytes([int(plain)])


def complete(k, plain=True):
    return bytes([9]) + handle(k) + bytes([int(plain)])


def set_time(k, t):
    return bytes([10]) + handle(k) + t


def set_speed(k, s):
    return bytes([11]) + handle(k) + s


def preserve(k):
    return bytes([12]) + handle(k)


def clear():
    return bytes([13, 0])


def zero_duration_now(step):
    """Op 13/1: a zero-duration motion made now must complete at the next update."""
    return bytes([13, 1]) + struct.pack("<I", step)


def pause_resume(run, pause, factor, speed):
    """Op 13/2: a fresh motion runs, pauses (for `pause * factor`), resumes at `speed`."""
    return bytes([13, 2]) + struct.pack("<I", run) + struct.pack("<I", pause) + bytes(
        [factor, speed])


def set_time_limit(k, scale, negative=False):
    """Op 13/3: set_time near the time limit (scale index 0..4: 0.5, 1, 1+1e-6, 2, 1.8e19)."""
    return bytes([13, 3]) + handle(k) + bytes([scale, 1 if negative else 0])


def reserve(n16):
    return bytes([14, n16])


def query(k):
    return bytes([15]) + handle(k)


def queue(kind, target=0, time=None, speed=None):
    return bytes([16, kind]) + struct.pack("<I", target) + (time or f64s(0.5)) + (
        speed or f32s(1.0))


def take_errors():
    return bytes([18])


def burst(n, step64):
    return bytes([19, n]) + bytes([step64] * n)


# ---------------------------------------------------------------- seeds

OPS = {
    "00_empty": b"",
    "01_linear_to_completion": create(f32s(0), f32s(10), builder(f32s(1)),
                                      callbacks(bind=True, complete=True))
    + update(f64s(0.25)) + update(f64s(0.5)) + update(f64s(0.5)) + query(0),
    "02_bad_builder_values": create(F32_NAN, f32s(1), builder(f32s(1)))
    + create(f32s(0), F32_INF, builder(f32s(1)))
    + create(f32s(0), f32s(1), builder(F32_NAN))
    + create(f32s(0), f32s(1), builder(f32neg(-1)))
    + create(f32s(0), f32s(1), builder(f32s(1), delay=F32_NINF))
    + create(f32s(0), f32s(1), builder(f32s(1), speed=F32_NAN)),
    "03_loops_zero_and_negative": create(f32s(0), f32s(1), builder(f32s(1), loop=(0, YOYO)))
    + create(f32s(0), f32s(1), builder(f32s(1), loop=(-7, FLIP)))
    + create(f32s(0), f32s(1), builder(f32s(1), loop=(2**31 - 1, INCREMENTAL)))
    + update(f64s(15)) + query(0),
    "04_preserve_complete_rewind": create(f32s(0), f32s(4), builder(f32s(0.5), preserve=True),
                                          callbacks(bind=True, complete=True))
    + complete(0) + complete(0) + set_time(0, f64s(0.25)) + update(f64s(0.5))
    + update(f64s(0.5)) + cancel(0) + cancel(0),
    "05_infinite_loops": create(f32s(1), f32s(2), builder(f32s(0.25), loop=(-1, INCREMENTAL)),
                                callbacks(bind=True, loop=True))
    + update(f64s(15)) + complete(0) + complete(0, False) + set_speed(0, f32neg(-2))
    + update(f64s(15)) + query(0) + cancel(0, False),
    "06_panicking_callbacks": create(f32s(0), f32s(1), builder(f32s(1), flags=(True, True)),
                                     callbacks(bind=True, complete=True, cancel=True, loop=True,
                                               panics=0xF))
    + create(f32s(0), f32s(1), builder(f32s(0.5), loop=(3, FLIP)),
             callbacks(bind=True, complete=True, loop=True, panics=0xB))
    + burst(12, 8) + take_errors() + update(f64s(4)) + take_errors(),
    "07_spawn_chain": create(f32s(0), f32s(1), builder(f32s(0.25)),
                             callbacks(complete=True,
                                       react=reaction(1, 6 + 8, 1, f64s(0.25), f32s(2))))
    + burst(15, 4) + burst(15, 4) + update(f64s(8)),
    "08_clear_from_callback": create(f32s(0), f32s(1), builder(f32s(0.5)),
                                     callbacks(bind=True, complete=True, react=reaction(1, 5)))
    + create(f32s(0), f32s(1), builder(f32s(2)), callbacks(bind=True))
    + update(f64s(1)) + query(1) + cancel(1) + update(f64s(1)),
    "09_refused_updates": create(f32s(0), f32s(1), builder(f32s(1)))
    + update(f64neg(-1)) + update(F64_NAN) + update(F64_INF) + update(F64_MAX)
    + update_with(f64s(0.5), F64_NAN, f64s(0.5)) + update(f64s(0.5)),
    "10_huge_and_odd_times": create(f32s(0), f32s(1), builder(f32s(1), preserve=True),
                                    callbacks(bind=True))
    + set_time(0, F64_HUGE) + set_time(0, F64_INF) + set_time(0, F64_NAN)
    + set_time(0, f64raw(-1e300)) + set_time(0, f64raw(5e-324)) + update(f64s(1)) + query(0),
    "11_odd_speeds": create(f32s(0), f32s(1), builder(f32s(1), loop=(-1, YOYO)),
                            callbacks(bind=True, loop=True))
    + set_speed(0, F32_NAN) + set_speed(0, F32_ZERO) + update(f64s(1))
    + set_speed(0, F32_DENORM) + update(f64s(1)) + set_speed(0, F32_MAX) + update(f64s(1))
    + set_speed(0, f32neg(-8)) + update(f64s(2)) + query(0),
    "12_vectors_and_type_mismatch": create_vec(4, [f32s(0)] * 4, [f32s(1), f32s(2), f32s(3),
                                                                  f32s(4)],
                                               builder(f32s(1)), callbacks(bind=True))
    + create_vec(2, [f32s(0)] * 4, [F32_NAN] * 4, builder(f32s(1)))
    + create_vec(3, [f32s(1)] * 4, [f32s(2)] * 4, builder(f32s(0.5), ease=EASES - 1))
    + update(f64s(0.5)) + query(0) + query(1),
    "13_stale_after_clear": create(f32s(0), f32s(1), builder(f32s(1)), callbacks(bind=True))
    + create(f32s(0), f32s(1), builder(f32s(1)))
    + clear() + cancel(0) + complete(1) + set_time(0, f64s(0.5)) + preserve(1) + query(0)
    + create(f32s(0), f32s(1), builder(f32s(1))) + cancel(0) + cancel(2),
    "14_queued_commands_then_clear": create(f32s(0), f32s(1), builder(f32s(1)),
                                            callbacks(complete=True, cancel=True))
    + queue(0) + queue(1) + queue(2, 0, f64s(0.75)) + queue(6) + clear()
    + queue(6 + 8) + queue(3, 0, f64s(0), f32neg(-1)) + update(f64s(1)) + update(f64s(8)),
    "15_zero_duration_every_loop_delay": create(
        f32s(0), f32s(1), builder(F32_ZERO, delay_with=(f32s(0.25), True, False), loop=(3, FLIP)),
        callbacks(bind=True, loop=True, complete=True))
    + create(f32s(0), f32s(1), builder(F32_ZERO, preserve=True), callbacks(complete=True))
    + burst(8, 8) + complete(1) + set_speed(1, f32s(2)) + update(f64s(1)) + complete(0),
    "16_time_kinds": create(f32s(0), f32s(1), builder(f32s(1), time_kind=UNSCALED),
                            callbacks(bind=True, complete=True))
    + create(f32s(0), f32s(1), builder(f32s(1), time_kind=REALTIME), callbacks(bind=True))
    + update_with(f64s(0.25), f64s(0.5), f64s(1)) + update_with(F64_ZERO, f64s(0.75), F64_ZERO),
    "17_reserve_and_many": reserve(255)
    + b"".join(create(f32s(i % 16), f32s(15), builder(f32s(0.25 * (1 + i % 4))),
                      callbacks(bind=i % 2 == 0, complete=i % 3 == 0)) for i in range(40))
    + burst(15, 16) + reserve(0) + update(f64s(10)),
    "18_foreign_and_none_handles": create(f32s(0), f32s(1), builder(f32s(1)))
    + cancel("foreign") + complete("none") + set_time("foreign", f64s(1)) + preserve("none")
    + query("foreign") + query("none") + set_speed("foreign", f32s(1)),
    "19_delay_skip_and_negative_speed": create(
        f32s(2), f32s(3), builder(f32s(0.5), delay=f32s(0.5), speed=f32neg(-1),
                                  loop=(2, YOYO), ease=22),
        callbacks(bind=True, complete=True, cancel=True, react=reaction(0, 2, 0, f64s(1.5))))
    + update(f64s(0.25)) + set_time(0, f64neg(-2)) + update(f64s(1)) + set_speed(0, f32s(1))
    + burst(10, 16),
}

# Found by `cargo fuzz run ops` (minimized): an infinite motion whose loop count saturates at
# u32::MAX (speed 3.7e19, then the closing updates) overflowed scheduling its next loop in a
# debug build.
OPS["21_loop_count_saturation"] = bytes.fromhex("000a000a100a1008000311010b00000000006000000060")

# Issue 16: zero durations, pause/resume and set_time near the limit, at untidy and long
# world times (0.1 s, then 12345.678 s, then months).
OPS["22_zero_duration_late"] = (update(f64raw(0.1)) + zero_duration_now(0x1234_5678)
                                + update(f64raw(12345.678)) + zero_duration_now(0xfedc_ba98)
                                + update(f64raw(9.005999999999997)) + zero_duration_now(1)
                                + update(f64raw(3e7)) + zero_duration_now(0x8000_0000))
OPS["23_pause_resume_late"] = (update(f64raw(9.005999999999997))
                               + pause_resume(0, 0x8765_4321, 3, 3)
                               + update(f64raw(12345.678)) + pause_resume(7, 0x1111_1111, 255, 0)
                               + update(f64raw(1e9)) + pause_resume(0x4000_0000, 99, 17, 7))
OPS["24_set_time_limits"] = (create(f32s(0), f32s(1), builder(f32s(1), loop=(-1, YOYO)),
                                    callbacks(bind=True, loop=True))
                             + create(f32s(0), f32s(1), builder(f32s(1)), callbacks(complete=True))
                             + b"".join(set_time_limit(k, i, neg) for k in range(2) for i in range(5)
                                        for neg in (False, True))
                             + update(f64raw(1.8e19)) + update(f64raw(1.8e19))
                             + update(F64_MAX) + update(F64_MAX) + zero_duration_now(5))

random.seed(7)
OPS["20_random"] = bytes(random.randrange(256) for _ in range(600))


def ease(i, x):
    return bytes([0, i]) + x


def row(hi, lo, speed, duration, delay, loops_b, flags, time, w):
    return bytes([1]) + hi + lo + speed + duration + delay + loops_b + flags + time + w


def valid_flags(ease_i, loop_type, every, kind):
    return bytes([0, ease_i, loop_type, int(every), kind])


EASE = {
    "00_every_ease_at_the_ends": b"".join(ease(i, F32_ZERO) + ease(i, f32s(1))
                                          for i in range(EASES)),
    "01_every_ease_mid": b"".join(ease(i, f32s(0.5)) + ease(i, f32s(0.0625))
                                  for i in range(EASES)),
    "02_non_finite": b"".join(ease(i, x) for i in range(EASES)
                              for x in (F32_NAN, F32_INF, F32_NINF, F32_MAX, F32_DENORM)),
    "03_outside_unit": b"".join(ease(i, f32s(2)) + ease(i, f32neg(-1)) + ease(i, f32raw(1e30))
                                for i in range(EASES)),
    "04_rows_plausible": b"".join(
        row(f32s(0), F32_ZERO, f32s(1), f32s(d), f32s(dl), loops(n), valid_flags(e, lt, ev, 0),
            f64s(t), f64s(1))
        for (d, dl, n, e, lt, ev, t) in [
            (1, 0, 1, 0, 0, 0, 0.5), (0, 0, 3, 5, 1, 1, 2), (0, 0.5, 2, 12, 2, 1, 0.75),
            (0.25, 0.25, -1, 22, 3, 1, 15), (2, 1, 4, 30, 2, 0, 9.5), (0, 0, -1, 7, 3, 0, 1)]),
    "05_rows_extreme": b"".join(
        row(hi, F32_ZERO, sp, du, de, lp, valid_flags(29, 2, ev, 2), t, w)
        for (hi, sp, du, de, lp, ev, t, w) in [
            (F32_MAX, f32s(1), F32_DENORM, F32_ZERO, loops(-1), 0, F64_HUGE, F64_MAX),
            (F32_NAN, F32_NAN, F32_NAN, F32_NAN, loops(0), 1, F64_NAN, F64_INF),
            (f32s(1), F32_ZERO, F32_MAX, F32_MAX, loops(2**31 - 1), 1, f64raw(-1e300), F64_ZERO),
            (f32s(0), f32s(1), F32_DENORM, F32_DENORM, loops(-1), 1, F64_MAX, f64s(3)),
            (f32s(0), f32s(1), f32s(1), F32_ZERO, loops(3), 0, f64raw(5e-324), f64s(1))]),
    "06_rows_raw_flags": bytes([1]) + f32s(0) + F32_ZERO + f32s(1) + f32s(1) + F32_ZERO
    + loops(1) + bytes([1]) + struct.pack("<I", 0xFFFFFFFF) + f64s(0.5) + f64s(1),
}


def write(target, seeds):
    folder = os.path.join(HERE, target)
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name + ".bin"), "wb") as f:
            f.write(data)


write("ops", OPS)
write("ease", EASE)
print(f"{len(OPS)} ops seeds, {len(EASE)} ease seeds")
