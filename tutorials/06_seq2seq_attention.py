"""Tutorial 6: sequence-to-sequence with attention.

An encoder reads an input sequence; a decoder writes an output sequence of another length, one token at a
time, each step looking back ("attending") at the encoder's states that matter for that step. CNTK's
classic example turned spellings into pronunciations (CMUDict); our toy task is as structured and trains in
minutes: turn a word into its letters reversed, e.g. "abcd" -> "dcba". Attention has to learn to read the
input from the end.

The data file uses the CMUDict example's CTF layout: input letters (S0) and output letters (S1) share the
sequence id but have their own lengths; each output starts with <s> and ends with </s>:

    0 |S0 3:1 |# a  |S1 0:1 |# <s>
    0 |S0 4:1 |# b  |S1 4:1 |# b
    0           |S1 3:1 |# a
    0           |S1 1:1 |# </s>

New here: two different dynamic axes (C.Axis, SequenceOver), typed Functions (@C.Function with
signatures), Delay (teacher forcing: the decoder sees the previous true letter), AttentionModel inside the
decoder's Recurrence, sequence.slice, and greedy decoding with UnfoldFrom + hardmax.

Run it:   python tutorials/06_seq2seq_attention.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import (AttentionModel, Dense, Delay, Embedding, LSTM, Recurrence, Sequential, SequenceOver,
                         Stabilizer, UnfoldFrom)
from cntk.layers.typing import Tensor
from cntk.logging import ProgressPrinter

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "06_seq2seq_attention"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)
rng = np.random.RandomState(0)

# --- 1. Data -----------------------------------------------------------------------------------------------
# One vocabulary for both sides: the two markers and six letters.
vocab = ["<s>", "</s>"] + list("abcdef")
index = {t: i for i, t in enumerate(vocab)}
vocab_size = len(vocab)
sentence_end = index["</s>"]
# The decoder's first input is <s> as a one-hot vector (a Constant), since its inputs are one-hot letters.
sentence_start = C.Constant(np.eye(vocab_size, dtype=np.float32)[index["<s>"]], name="sentence_start")


def write_pairs(path, count):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        for sid in range(count):
            letters = list(rng.choice(list("abcdef"), size=rng.randint(3, 6)))
            target = ["<s>"] + letters[::-1] + ["</s>"]
            for i in range(len(target)):
                source = "|S0 %d:1 |# %s\t" % (index[letters[i]], letters[i]) if i < len(letters) else ""
                f.write("%d %s|S1 %d:1 |# %s\n" % (sid, source, index[target[i]], target[i]))
    return path


train_file = write_pairs(os.path.join(args.out, "reverse.train.ctf"), 2000 if args.quick else 20000)


def create_reader(path, is_training):
    streams = StreamDefs(features=StreamDef(field="S0", shape=vocab_size, is_sparse=True),
                         labels=StreamDef(field="S1", shape=vocab_size, is_sparse=True))
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1)


# --- 2. Model ----------------------------------------------------------------------------------------------
# Input and output sequences have their own lengths, so they live on two different dynamic axes.
input_axis, label_axis = C.Axis("inputAxis"), C.Axis("labelAxis")
InputSequence, LabelSequence = SequenceOver[input_axis], SequenceOver[label_axis]

hidden_dim, attention_dim, embedding_dim = (32, 32, 16) if args.quick else (128, 128, 32)
embed = Embedding(embedding_dim, name="embed")
encode = Sequential([embed, Stabilizer(), Recurrence(LSTM(hidden_dim), return_full_state=True)])
attention = AttentionModel(attention_dim, name="attention")
decoder_cell = LSTM(hidden_dim)
output_projection = Dense(vocab_size, name="out_proj")


def decoder(history, source):
    """Scores for the next letter, given the letters so far (``history``) and the input ``source``.

    At each output step the decoder's previous state h asks the attention model which input positions
    matter; the answer (a weighted sum of the encoder's states) is fed into the LSTM step with the previous
    letter, as in CNTK's CMUDict example."""
    encoded = encode(source)                         # (h, c) at every input position

    @C.Function
    def lstm_with_attention(h, c, x):
        context = attention(encoded.outputs[0], h)   # one context vector per output step
        return decoder_cell(h, c, C.splice(x, context))
    r = Recurrence(lstm_with_attention)(embed(history))
    return output_projection(r)


# Training: the decoder's history is the true output shifted by one step (teacher forcing).
@C.Function
def model_train(source, labels):
    past_labels = Delay(initial_state=sentence_start)(labels)
    return decoder(past_labels, source)


# Decoding: feed the decoder its own best guess (hardmax = one-hot of the argmax) until it writes </s>.
@C.Function.with_signature(InputSequence[Tensor[vocab_size]])
def model_greedy(source):
    unfold = UnfoldFrom(lambda history: decoder(history, source) >> C.hardmax,
                        until_predicate=lambda w: w[..., sentence_end], length_increase=1.5)
    return unfold(initial_state=sentence_start, dynamic_axes_like=source)


# The reader delivers sparse one-hot letters; dense inputs accept them (CNTK 2.7 cannot Delay a sparse
# sequence, which the decoder's history needs).
@C.Function.with_signature(InputSequence[Tensor[vocab_size]], LabelSequence[Tensor[vocab_size]])
def criterion(source, labels):
    targets = C.sequence.slice(labels, 1, 0)         # drop <s>: "<s> d c b a </s>" -> "d c b a </s>"
    z = model_train(source, targets)
    return C.cross_entropy_with_softmax(z, targets), C.classification_error(z, targets)


# --- 3. Training -------------------------------------------------------------------------------------------
loss, error = criterion.outputs
minibatch_size = 200
total_samples = 4000 if args.quick else 200000
learner = C.fsadagrad(criterion.parameters, lr=C.learning_parameter_schedule_per_sample(0.005),
                      momentum=C.momentum_schedule_per_sample(0.9990913221888589),
                      gradient_clipping_threshold_per_sample=2.3, gradient_clipping_with_truncation=True)
printer = ProgressPrinter(freq=0 if args.quick else 100, tag="Training")
trainer = C.Trainer(None, criterion, [learner], [printer])

reader = create_reader(train_file, True)
source_arg, labels_arg = criterion.arguments
input_map = {source_arg: reader.streams.features, labels_arg: reader.streams.labels}
seen = 0
while seen < total_samples:
    trainer.train_minibatch(reader.next_minibatch(minibatch_size, input_map=input_map))
    seen += trainer.previous_minibatch_sample_count
trainer.summarize_training_progress()

# --- 4. Decoding new words ---------------------------------------------------------------------------------
correct = 0
words = ["abc", "fed", "abcd", "cafe", "dbeaf", "aabbc"]
for word in words:
    out = model_greedy(np.eye(vocab_size, dtype=np.float32)[[index[ch] for ch in word]][None])[0]
    letters = []
    for step in np.argmax(out, axis=1):
        if step == sentence_end:
            break
        letters.append(vocab[step])
    guess = "".join(letters)
    correct += guess == word[::-1]
    print("%-6s -> %-8s (want %s)" % (word, guess, word[::-1]))
print("%d of %d words reversed correctly" % (correct, len(words)))

