"""Slot tagging of ATIS-style hotel-booking queries: sparse word sequences in CTF (S0 words, S2 slot tags),
an Embedding and a bidirectional LSTM, trained by training_session with a cross-validation set.

    python examples/atis_slot_tagging.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import Dense, Embedding, LSTM, Recurrence, Sequential, default_options
from cntk.train.training_session import CrossValidationConfig, TestConfig, training_session

TEMPLATES = ["book a room in {city} for {nights} nights", "i need a hotel in {city} on {day}",
             "find a {stars} star hotel near {city}", "reserve {nights} nights in a {stars} star hotel in {city}"]
FILLERS = {"city": ["paris", "rome", "oslo", "lima", "cairo", "tokyo"], "nights": ["two", "three", "four"],
           "day": ["monday", "friday", "sunday"], "stars": ["three", "four", "five"]}
VOCAB = ["<unk>"] + sorted({w for t in TEMPLATES for w in t.split() if "{" not in w}
                           | {w for words in FILLERS.values() for w in words})
SLOTS = ["O"] + ["B-" + name for name in sorted(FILLERS)]


def write_queries(path, count, rng):
    with open(path, "w") as f:
        for sid in range(count):
            for token in rng.choice(TEMPLATES).split():
                slot = token[1:-1] if token.startswith("{") else None
                word = rng.choice(FILLERS[slot]) if slot else token
                tag = "B-" + slot if slot else "O"
                f.write("%d |S0 %d:1 |# %s\t|S2 %d:1 |# %s\n" % (sid, VOCAB.index(word), word, SLOTS.index(tag), tag))
    return path


def create_reader(path, is_training):
    streams = StreamDefs(query=StreamDef(field="S0", shape=len(VOCAB), is_sparse=True),
                         slot_labels=StreamDef(field="S2", shape=len(SLOTS), is_sparse=True))
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1)


def BiRecurrence(forward_cell, backward_cell):
    """A forward and a backward recurrence over the same input, their outputs spliced."""
    forward, backward = Recurrence(forward_cell), Recurrence(backward_cell, go_backwards=True)

    @C.Function
    def bidirectional(x):
        return C.splice(forward(x), backward(x))
    return bidirectional


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "atis_slot_tagging"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)
    os.makedirs(args.out, exist_ok=True)
    train = write_queries(os.path.join(args.out, "train.ctf"), 300 if args.quick else 3000, rng)
    valid = write_queries(os.path.join(args.out, "valid.ctf"), 50, rng)
    test = write_queries(os.path.join(args.out, "test.ctf"), 100, rng)

    query = C.sequence.input_variable(len(VOCAB), is_sparse=True)
    slot_labels = C.sequence.input_variable(len(SLOTS), is_sparse=True)
    with default_options(initial_state=0.1):
        z = Sequential([Embedding(32), BiRecurrence(LSTM(32), LSTM(32)), Dense(len(SLOTS))])(query)
    loss = C.cross_entropy_with_softmax(z, slot_labels)
    error = C.classification_error(z, slot_labels)
    C.logging.log_number_of_parameters(z)

    epoch_size = 1000 if args.quick else 10000
    epochs = 2 if args.quick else 8
    learner = C.momentum_sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.1),
                             C.momentum_schedule(0.9), gradient_clipping_threshold_per_sample=15)
    trainer = C.Trainer(z, (loss, error), [learner],
                        [C.logging.ProgressPrinter(tag="Training", num_epochs=epochs)])
    reader = create_reader(train, True)
    streams = {query: reader.streams.query, slot_labels: reader.streams.slot_labels}
    valid_reader = create_reader(valid, False)
    test_reader = create_reader(test, False)
    training_session(
        trainer=trainer, mb_source=reader, mb_size=100, model_inputs_to_streams=streams,
        max_samples=epoch_size * epochs, progress_frequency=epoch_size,
        cv_config=CrossValidationConfig(valid_reader, frequency=epoch_size, minibatch_size=200,
                                        model_inputs_to_streams={query: valid_reader.streams.query,
                                                                 slot_labels: valid_reader.streams.slot_labels}),
        test_config=TestConfig(test_reader, minibatch_size=200,
                               model_inputs_to_streams={query: test_reader.streams.query,
                                                        slot_labels: test_reader.streams.slot_labels}),
    ).train()

    words = "reserve three nights in a five star hotel in oslo".split()
    tags = np.argmax(z.eval({query: C.Value.one_hot([[VOCAB.index(w) for w in words]], len(VOCAB))})[0], 1)
    print(" ".join("%s/%s" % (w, SLOTS[t]) for w, t in zip(words, tags)))


if __name__ == "__main__":
    main()
