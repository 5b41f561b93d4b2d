"""Seed 001 (CNTK "extending CNTK" manual): the UserMinibatchSource reimplementing a CTF reader,
trained with training_session.

The seed's text lost some lines when it was extracted (``continue``/``break``, the list appends,
closing brackets, ``model_inputs_to_streams=input_map``); they are restored as in the CNTK manual,
and the model elided there ("# ...") is the one of CNTK's own test of this source.  Everything else
is the seed's code as it stands.
"""
import scipy.sparse as sp

import cntk
from cntk import Trainer, sequence, training_session
from cntk.core import Value

import numpy as np
from cntk.io import UserMinibatchSource, StreamInformation, MinibatchData

# Our toy test data contains two sequences. 'x' is a sparse representation of the
# features (numbers representing the words in our training data). 'y' is the one-hot
# label.
MBDATA = r'''0	|x 560:1	|y 1 0 0 0 0
0	|x 0:1
0	|x 0:1
1	|x 560:1	|y 0 1 0 0 0
1	|x 0:1
1	|x 0:1
1	|x 424:1
'''


class MyDataSource(UserMinibatchSource):
    def __init__(self, f_dim, l_dim):
        self.f_dim, self.l_dim = f_dim, l_dim

        self.fsi = StreamInformation("features", 0, 'sparse', np.float32, (self.f_dim,))
        self.lsi = StreamInformation("labels", 1, 'dense', np.float32, (self.l_dim,))

        # MBDATA fits into memory, so we will read it in all at once. Normally, however,
        # it does not, in which case we would need to keep track of the position in the
        # file until which we have already provided the data.
        # It follows the CNTKTextFormat specification
        #   sequence ID |feature1 data |feature2 data
        # where in this case feature1's data is encoded as one-hot and we will
        # convert to CSR, and feature2's data is a one-hot encoded as dense.

        # We will store
        #   sequence id -> "features" -> list of features
        # and
        #   sequence id -> "labels" -> label

        self.data = {}
        for line in MBDATA.split('\n'):
            line = line.strip()
            if not line:
                continue
            seq_id, data = line.split('|', 1)
            data = data.split("|")
            seq_id = int(seq_id.strip())

            if seq_id not in self.data:
                self.data[seq_id] = {'features': []}

            # Processing features - expecting one per line.
            features = data[0].split(" ")
            vocab_idx = int(features[1].split(":")[0])
            self.data[seq_id]['features'].append(vocab_idx)

            # Process label, if exists
            if len(data) == 2:
                labels = np.asarray([data[1].split(" ")[1:]], dtype=np.float32)
                self.data[seq_id]['labels'] = labels

        self.sequences = sorted(self.data)
        self.next_seq_idx = 0

        super(MyDataSource, self).__init__()

    def stream_infos(self):
        return [self.fsi, self.lsi]

    def next_minibatch(self, num_samples, number_of_workers=1, worker_rank=0, device=None):
        # Note that in this example we do not yet make use of number_of_workers or
        # worker_rank, which will limit the minibatch source to single GPU / single node
        # scenarios.

        features = []
        labels = []

        sweep_end = False

        f_sample_count = l_sample_count = 0

        while max(f_sample_count, l_sample_count) < num_samples:
            if self.next_seq_idx == len(self.sequences):
                sweep_end = True
                self.next_seq_idx = 0

            seq_id = self.sequences[self.sequences[self.next_seq_idx]]

            f_data = self.data[seq_id]['features']
            l_data = self.data[seq_id]['labels']
            if (features or labels) and max(f_sample_count+len(f_data), l_sample_count+len(l_data)) > num_samples:
                break
            f_sample_count += len(f_data)
            features.append(f_data)

            l_sample_count += len(l_data)
            labels.append(l_data)

            self.next_seq_idx += 1

        num_seq = len(features)

        f_data = Value.one_hot(batch=features, num_classes=self.f_dim)
        l_data = Value(batch=np.asarray(labels, dtype=np.float32))

        result = {
                self.fsi: MinibatchData(f_data, num_seq, f_sample_count, sweep_end),
                self.lsi: MinibatchData(l_data, num_seq, l_sample_count, sweep_end)
        }

        return result


def test_source_delivers_the_sequences_of_the_data():
    mbs = MyDataSource(1000, 5)
    mb = mbs.next_minibatch(7)
    features, labels = mb[mbs.fsi], mb[mbs.lsi]
    assert (features.num_sequences, features.num_samples, labels.num_samples) == (2, 7, 2)
    assert features.end_of_sweep is False and labels.shape == (2, 1, 5)
    first, second = features.as_sequences(sequence.input_variable(mbs.fsi.shape, is_sparse=mbs.fsi.is_sparse))
    assert sp.issparse(first) or isinstance(first, np.ndarray)
    dense = [np.asarray(s.todense() if sp.issparse(s) else s) for s in (first, second)]
    assert [list(d.argmax(axis=-1).ravel()) for d in dense] == [[560, 0, 0], [560, 0, 0, 424]]
    np.testing.assert_array_equal(labels.asarray().reshape(2, 5), [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]])
    assert mbs.next_minibatch(4)[mbs.fsi].end_of_sweep is True      # the next read wraps around


def test_training_session_on_the_user_source():
    cntk.cntk_py.set_fixed_random_seed(1)
    input_dim = 1000
    num_output_classes = 5

    # instantiating the user minibatch source
    mbs = MyDataSource(input_dim, num_output_classes)
    feature = sequence.input_variable(shape=(input_dim,))
    label = cntk.input_variable(shape=(num_output_classes,))

    # setting up the model
    p = cntk.parameter(shape=(input_dim, num_output_classes), init=10)
    z = cntk.times(sequence.reduce_sum(feature), p, name='z')
    ce = cntk.cross_entropy_with_softmax(z, label)
    errs = cntk.classification_error(z, label)
    learner = cntk.sgd(z.parameters, cntk.learning_parameter_schedule_per_sample(0.3))

    # and train
    trainer = Trainer(z, (ce, errs), [learner])
    input_map = {
        feature: mbs.fsi,
        label: mbs.lsi
    }

    session = training_session(
        trainer=trainer, mb_source=mbs,
        model_inputs_to_streams=input_map,
        mb_size=4, max_samples=20
    )
    session.train()

    assert trainer.total_number_of_samples_seen == 20
    # the rows of the features seen (560, 0 and 424) moved; the others did not
    changed = np.flatnonzero(np.abs(p.value - 10).sum(axis=1) > 0)
    assert list(changed) == [0, 424, 560]
