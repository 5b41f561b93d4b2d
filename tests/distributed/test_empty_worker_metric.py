"""A data-parallel worker without data in a minibatch reports the metric summed over the workers, as CNTK 2.7
does (its own forward pass computes no metric; cntk-compat dropped the sum, so that worker's training summary
missed that minibatch's errors and previous_minibatch_evaluation_average raised). CNTK's
InceptionV3_ImageNet_Distributed.py example met it at the end of an epoch, where the last minibatch held one
sample. Golden values: CNTK 2.7 under `mpiexec -n 2` with the same net, data and minibatches."""
import pytest

from tests.distributed._empty_worker_metric_workers import metric_with_an_empty_worker
from tests.distributed._spawn import run_workers

# after the 3rd minibatch (1 sample, on rank 1): samples, loss average, metric average; then the summary line
LAST_CNTK27 = [1, 0.454455, 0.0]
SUMMARY_CNTK27 = "Finished Epoch[1]: [Training] loss = 0.824122 * 6, metric = 33.33% * 6"


def test_a_worker_without_data_reports_the_summed_metric(tmp_path):
    ranks = run_workers(metric_with_an_empty_worker, tmp_path)
    for r in ranks:
        samples, loss, metric = r["last"]
        assert samples == LAST_CNTK27[0]
        assert loss == pytest.approx(LAST_CNTK27[1], abs=2e-6)
        assert metric == pytest.approx(LAST_CNTK27[2], abs=1e-7)
        summary, = r["summary"]
        assert summary.startswith(SUMMARY_CNTK27 + " ")
