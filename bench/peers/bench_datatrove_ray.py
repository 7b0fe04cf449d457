#!/usr/bin/env python3
"""datatrove's MinHash dedup on its Ray executor: ../shared/bench/peers/bench_datatrove.py (the
same 4 stages, input shards, settings, timing and results) with every `LocalPipelineExecutor`
made a `RayPipelineExecutor` on a local Ray of --procs CPUs, started before the timed stages
(as `neardup.ray`'s job is timed with its session). Results as `datatrove-ray`.

    python bench_datatrove_ray.py --corpus C [--procs 2] [--tok common|native]

Run it with a Python that has datatrove, xxhash<4, orjson, tokenizers and ray[data] installed.
"""
import os
import sys
import time

PEERS = os.environ.get("PEERS_DIR", os.path.join(os.path.dirname(__file__), "../../../shared/bench/peers"))
sys.path.insert(0, os.path.abspath(PEERS))


def main():
    import ray
    import datatrove.executor as executors
    from datatrove.executor import RayPipelineExecutor

    import bench_datatrove
    import common

    procs = int(sys.argv[sys.argv.index("--procs") + 1]) if "--procs" in sys.argv else 2
    t0 = time.perf_counter()
    ray.init(num_cpus=procs, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.path.abspath(PEERS)}})
    session_s = time.perf_counter() - t0

    def on_ray(pipeline, tasks=1, workers=-1, logging_dir=None, start_method=None):
        return RayPipelineExecutor(pipeline=pipeline, tasks=tasks, workers=workers,
                                   logging_dir=logging_dir, skip_completed=False)

    write_results = common.write_results

    def as_ray(tool, variant, corpus, meta, clusters, *rest):
        meta["threaded"] = "RayPipelineExecutor on a local Ray of %d CPUs (stage 3: 1 task)" % procs
        meta["ray_session_s"] = round(session_s, 3)
        return write_results(tool + "-ray", variant, corpus, meta, clusters, *rest)

    executors.LocalPipelineExecutor = on_ray
    common.write_results = as_ray
    try:
        bench_datatrove.main()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
