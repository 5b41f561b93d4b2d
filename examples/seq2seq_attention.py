"""Sequence-to-sequence with attention: read a number written in English words ("three hundred twelve")
and write its digits ("312"). Encoder and decoder are LSTMs on two different dynamic axes; the decoder
attends over the encoder's states; decoding is greedy (UnfoldFrom). Data in the CMUDict example's CTF
layout (S0 input tokens, S1 output tokens with <s> and </s>, one sequence id per pair).

    python examples/seq2seq_attention.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import AttentionModel, Dense, Delay, Embedding, LSTM, Recurrence, Sequential, SequenceOver, UnfoldFrom
from cntk.layers.typing import Tensor

ONES = "zero one two three four five six seven eight nine".split()
TEENS = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
IN_VOCAB = ONES[1:] + TEENS + TENS[2:] + ["hundred"]
OUT_VOCAB = ["<s>", "</s>"] + list("0123456789")


def in_words(n):
    words = [ONES[n // 100], "hundred"] if n >= 100 else []
    rest = n % 100
    if rest >= 20:
        words += [TENS[rest // 10]] + ([ONES[rest % 10]] if rest % 10 else [])
    elif rest >= 10:
        words.append(TEENS[rest - 10])
    elif rest or not words:
        words.append(ONES[rest])
    return words


def write_pairs(path, numbers):
    with open(path, "w") as f:
        for sid, n in enumerate(numbers):
            source, target = in_words(int(n)), ["<s>"] + list(str(n)) + ["</s>"]
            for i in range(max(len(source), len(target))):
                s = "|S0 %d:1 " % IN_VOCAB.index(source[i]) if i < len(source) else ""
                t = "|S1 %d:1" % OUT_VOCAB.index(target[i]) if i < len(target) else ""
                f.write("%d %s%s\n" % (sid, s, t))
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", default=os.path.join("example_output", "seq2seq_attention"))
    args = parser.parse_args()
    C.cntk_py.set_fixed_random_seed(1)
    rng = np.random.RandomState(0)
    os.makedirs(args.out, exist_ok=True)
    train_file = write_pairs(os.path.join(args.out, "numbers.ctf"), rng.randint(1, 1000, size=3000))

    in_dim, out_dim = len(IN_VOCAB), len(OUT_VOCAB)
    input_axis, label_axis = C.Axis("inputAxis"), C.Axis("labelAxis")
    InputSequence, LabelSequence = SequenceOver[input_axis], SequenceOver[label_axis]
    sentence_start = C.Constant(np.eye(out_dim, dtype=np.float32)[0])
    sentence_end = OUT_VOCAB.index("</s>")
    hidden = 32 if args.quick else 128

    encoder = Sequential([Embedding(16), Recurrence(LSTM(hidden))])
    out_embed, decoder_lstm = Embedding(16), Recurrence(LSTM(hidden))
    attention, project = AttentionModel(hidden), Dense(out_dim)

    def decode(history, source):
        encoded = encoder(source)
        states = decoder_lstm(out_embed(history))
        return project(C.splice(states, attention(encoded, states)))

    @C.Function.with_signature(InputSequence[Tensor[in_dim]], LabelSequence[Tensor[out_dim]])
    def criterion(source, labels):
        targets = C.sequence.slice(labels, 1, 0)
        z = decode(Delay(initial_state=sentence_start)(targets), source)
        return C.cross_entropy_with_softmax(z, targets), C.classification_error(z, targets)

    @C.Function.with_signature(InputSequence[Tensor[in_dim]])
    def greedy(source):
        return UnfoldFrom(lambda history: decode(history, source) >> C.hardmax,
                          until_predicate=lambda w: w[..., sentence_end],
                          length_increase=2)(initial_state=sentence_start, dynamic_axes_like=source)

    learner = C.adam(criterion.parameters, C.learning_parameter_schedule_per_sample(0.005),
                     C.momentum_schedule_per_sample(0.99), gradient_clipping_threshold_per_sample=2.3)
    trainer = C.Trainer(None, criterion, [learner], [C.logging.ProgressPrinter(freq=0, tag="Training")])
    reader = MinibatchSource(CTFDeserializer(train_file, StreamDefs(
        source=StreamDef(field="S0", shape=in_dim, is_sparse=True),
        target=StreamDef(field="S1", shape=out_dim, is_sparse=True))), max_sweeps=INFINITELY_REPEAT)
    source_arg, label_arg = criterion.arguments
    input_map = {source_arg: reader.streams.source, label_arg: reader.streams.target}
    seen, total = 0, (6000 if args.quick else 150000)
    while seen < total:
        trainer.train_minibatch(reader.next_minibatch(200, input_map=input_map))
        seen += trainer.previous_minibatch_sample_count
    trainer.summarize_training_progress()

    for n in (7, 42, 316, 900):
        one_hot = np.eye(in_dim, dtype=np.float32)[[IN_VOCAB.index(w) for w in in_words(n)]]
        steps = list(np.argmax(greedy(one_hot[None])[0], axis=1))
        steps = steps[:steps.index(sentence_end)] if sentence_end in steps else steps
        text = "".join(OUT_VOCAB[s] for s in steps)
        print("%-28s -> %s" % (" ".join(in_words(n)), text))


if __name__ == "__main__":
    main()
