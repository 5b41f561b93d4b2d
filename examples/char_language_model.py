"""A character-level language model (the shape of CNTK's char-RNN example): two stacked LSTMs read text one
character at a time and predict the next; the text is cut into sequences of fixed length and fed as sparse
one-hot characters; after training the model writes new text by sampling one character at a time.

    python examples/char_language_model.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.layers import Dense, For, LSTM, Recurrence, Sequential, Stabilizer

import _synthetic


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "char_language_model"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)
    text = _synthetic.text_corpus(20000 if args.quick else 200000, seed=0)
    chars = sorted(set(text))
    index = {c: i for i, c in enumerate(chars)}
    vocab = len(chars)
    data = np.array([index[c] for c in text])
    print("%d characters, vocabulary of %d" % (len(text), vocab))

    hidden, layers, seq_len = (64, 2, 25) if args.quick else (256, 2, 50)
    x = C.sequence.input_variable(vocab)     # dense: Stabilizer scales its input, which CNTK cannot do sparse
    y = C.sequence.input_variable(vocab, is_sparse=True)
    # Stacked LSTMs whose input dimensions are inferred when the model first sees data.
    z = Sequential([For(range(layers), lambda: Sequential([Stabilizer(), Recurrence(LSTM(hidden))])),
                    Dense(vocab)])(x)
    loss, error = C.cross_entropy_with_softmax(z, y), C.classification_error(z, y)

    learner = C.momentum_sgd(z.parameters, C.learning_parameter_schedule_per_sample(0.001),
                             C.momentum_schedule_per_sample(0.9990913221888589),
                             gradient_clipping_threshold_per_sample=5.0, gradient_clipping_with_truncation=True)
    trainer = C.Trainer(z, (loss, error), [learner], [C.logging.ProgressPrinter(freq=0 if args.quick else 100,
                                                                                  tag="Training")])
    sequences_per_batch = 10
    steps = 30 if args.quick else 2000
    for step in range(steps):
        starts = rng.randint(0, len(data) - seq_len - 1, size=sequences_per_batch)
        features = [data[s:s + seq_len].tolist() for s in starts]      # one list of indices per sequence
        targets = [data[s + 1:s + seq_len + 1].tolist() for s in starts]
        trainer.train_minibatch({x: C.Value.one_hot(features, vocab), y: C.Value.one_hot(targets, vocab)})
    trainer.summarize_training_progress()

    # Sampling: feed the text so far, draw the next character from the softmax of the last step's output.
    probabilities = C.softmax(z)
    generated = list("the ")
    for _ in range(60 if args.quick else 300):
        window = [index[c] for c in generated[-seq_len:]]
        out = probabilities.eval({x: C.Value.one_hot([window], vocab)})[0][-1]
        generated.append(chars[rng.choice(vocab, p=out / out.sum())])
    print("sample:", "".join(generated))
    os.makedirs(args.out, exist_ok=True)
    z.save(os.path.join(args.out, "char_lm.model"))


if __name__ == "__main__":
    main()
