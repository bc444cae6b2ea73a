//! wgpu-tween in the browser (placeholder; the swarm lands here).
