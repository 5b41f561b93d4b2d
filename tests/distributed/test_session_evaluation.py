"""A distributed training session's cross validation and test, as CNTK 2.7 runs them for block momentum and
data-parallel learners alike: each worker reads its partition and the metric is summed over the workers (so each
worker prints the same line over the whole data, each part evaluated with its worker's model); the session's
actions see the sample count the workers agreed on at a summary; data-parallel workers end with an empty minibatch
trained together."""
import numpy as np

from tests.distributed import _workers
from tests.distributed._spawn import run_workers

# CNTK 2.7 (CPU, mpiexec -n 2, Open MPI 4.1.4) running _workers.session_evaluations: the metrics of the
# 'Finished Evaluation [i]: Minibatch[1-4]: metric = m% * 50;' lines (both workers), and per worker what
# on_minibatch_end saw last (previous_minibatch_sample_count, total_number_of_samples_seen), the final parameters
# and each cross validation's [index, samples seen, average error, samples, minibatches, parameters]. Evaluating
# the whole data alone, as cntk-compat did under block momentum, gives 'Minibatch[1-3]', metrics that differ between
# the workers, and (before the Trainer read the learner's count) the cross validation with index 11 after the last
# aggregation; a data-parallel session ended without the empty minibatch (last count 3, not 0).
# data-parallel workers hold the same model throughout: both print and end alike
_DP_RANK = {"last": [0, 150], "W": [-0.774321, 0.674321, -0.359432, 0.759432, -0.713875, 0.813875],
            "evaluations": [
                [0, 14, 0.36, 50, 4, [-0.13063, 0.03063, 0.32582, 0.07418, -0.2578, 0.3578]],
                [1, 28, 0.16, 50, 4, [-0.24671, 0.14671, 0.11425, 0.28575, -0.3061, 0.4061]],
                [2, 42, 0.16, 50, 4, [-0.3922, 0.2922, 0.09901, 0.30099, -0.46654, 0.56654]],
                [3, 56, 0.14, 50, 4, [-0.59766, 0.49766, 0.00997, 0.39003, -0.47003, 0.57003]],
                [4, 70, 0.14, 50, 4, [-0.67798, 0.57798, -0.06948, 0.46948, -0.56157, 0.66157]],
                [5, 84, 0.16, 50, 4, [-0.67136, 0.57136, -0.06064, 0.46064, -0.62733, 0.72733]],
                [6, 91, 0.16, 50, 4, [-0.73442, 0.63442, -0.03229, 0.43229, -0.69583, 0.79583]],
                [7, 105, 0.14, 50, 4, [-0.6916, 0.5916, -0.0564, 0.4564, -0.76191, 0.86191]],
                [8, 119, 0.14, 50, 4, [-0.69957, 0.59957, -0.18631, 0.58631, -0.83484, 0.93484]],
                [9, 133, 0.14, 50, 4, [-0.68866, 0.58866, -0.25791, 0.65791, -0.84012, 0.94012]],
                [10, 147, 0.14, 50, 4, [-0.76363, 0.66363, -0.39412, 0.79412, -0.68361, 0.78361]],
                [11, 150, 0.16, 50, 4, [-0.77432, 0.67432, -0.35943, 0.75943, -0.71388, 0.81388]],
            ]}

CNTK27 = {
    "bm": {
        "metrics": ["36.00", "20.00", "16.00", "14.00", "14.00", "16.00", "16.00", "16.00", "14.00"],
        "ranks": [
            {"last": [0, 160], "W": [-1.63407, 1.53407, -0.792988, 1.19299, -1.44603, 1.54603],
             "evaluations": [
                 [0, 14, 0.36, 50, 4, [-0.04661, -0.05339, 0.28696, 0.11304, -0.20004, 0.30004]],
                 [1, 28, 0.2, 50, 4, [-0.36634, 0.26634, 0.22177, 0.17823, -0.31738, 0.41738]],
                 [2, 70, 0.16, 50, 4, [-0.79909, 0.69909, 0.005, 0.395, -0.45726, 0.55726]],
                 [5, 84, 0.14, 50, 4, [-0.70589, 0.60589, -0.08332, 0.48332, -0.63721, 0.73721]],
                 [6, 91, 0.14, 50, 4, [-0.78957, 0.68957, -0.07559, 0.47559, -0.58243, 0.68243]],
                 [7, 140, 0.16, 50, 4, [-1.2336, 1.1336, -0.33949, 0.73949, -0.98865, 1.08865]],
                 [10, 145, 0.16, 50, 4, [-1.16968, 1.06968, -0.3934, 0.7934, -0.92587, 1.02587]],
                 [11, 160, 0.16, 50, 4, [-1.14002, 1.04002, -0.52111, 0.92111, -0.83679, 0.93679]],
             ]},
            {"last": [0, 160], "W": [-1.63407, 1.53407, -0.792988, 1.19299, -1.44603, 1.54603],
             "evaluations": [
                 [0, 14, 0.36, 50, 4, [-0.13281, 0.03281, 0.14219, 0.25781, -0.26315, 0.36315]],
                 [1, 28, 0.2, 50, 4, [-0.44992, 0.34992, 0.03456, 0.36544, -0.30962, 0.40962]],
                 [2, 70, 0.16, 50, 4, [-0.79909, 0.69909, 0.005, 0.395, -0.45726, 0.55726]],
                 [5, 84, 0.14, 50, 4, [-0.72985, 0.62985, -0.09891, 0.49891, -0.66862, 0.76862]],
                 [6, 91, 0.14, 50, 4, [-0.81612, 0.71612, -0.10215, 0.50215, -0.67198, 0.77198]],
                 [7, 140, 0.16, 50, 4, [-1.2336, 1.1336, -0.33949, 0.73949, -0.98865, 1.08865]],
                 [10, 145, 0.16, 50, 4, [-1.22106, 1.12106, -0.4461, 0.8461, -0.97007, 1.07007]],
                 [11, 160, 0.16, 50, 4, [-1.2529, 1.1529, -0.4665, 0.8665, -0.96213, 1.06213]],
             ]},
        ],
    },
    "dp": {
        "metrics": ["36.00", "16.00", "16.00", "14.00", "14.00", "16.00", "16.00", "14.00", "14.00", "14.00", "14.00",
                    "16.00", "16.00"],
        "ranks": [
            _DP_RANK, _DP_RANK,
        ],
    },
}


def test_workers_evaluate_their_partitions_together_and_data_parallel_ends_with_an_empty_minibatch(tmp_path):
    ranks = run_workers(_workers.session_evaluations, tmp_path, list(CNTK27))
    for kind, expected in CNTK27.items():
        lines = ["Finished Evaluation [%d]: Minibatch[1-4]: metric = %s%% * 50;" % (i + 1, m)
                 for i, m in enumerate(expected["metrics"])]
        for rank, reference in zip(ranks, expected["ranks"]):
            got = rank[kind]
            assert got["evaluation_lines"] == lines, kind
            assert got["last"] == reference["last"], kind
            np.testing.assert_allclose(got["parameters"], reference["W"], rtol=1e-5, atol=1e-5, err_msg=kind)
            assert [e[:5] for e in got["evaluations"]] == [e[:5] for e in reference["evaluations"]], kind
            np.testing.assert_allclose([e[5] for e in got["evaluations"]],
                                       [e[5] for e in reference["evaluations"]], atol=2e-5, err_msg=kind)
