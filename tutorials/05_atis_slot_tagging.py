"""Tutorial 5: slot tagging (ATIS style) with a bidirectional LSTM over CNTK Text Format sequences.

A flight-booking assistant must find the slots in a query: in "show flights from boston to denver on
monday" the words "boston", "denver" and "monday" fill the slots departure city, arrival city and day. This
is sequence labelling: one tag per word. The ATIS corpus CNTK's tutorial used cannot be shipped here, so we
generate queries from a small grammar and write them in ATIS's CTF layout, one word per line, the lines of a
query sharing its sequence id:

    17 |S0 4:1 |# show  |S2 0:1 |# O
    17 |S0 9:1 |# flights  |S2 0:1 |# O
    ...

S0 is the word (a sparse one-hot index into the vocabulary), S2 the slot tag; "|#" starts a comment.

New here: sparse sequence streams, Embedding, a bidirectional recurrence (one LSTM reading forwards, one
backwards, their outputs spliced), per-word loss and error over variable-length sequences, and tagging a new
sentence by feeding one-hot word indices.

Run it:   python tutorials/05_atis_slot_tagging.py [--quick] [--out DIR]
"""
import argparse
import os

import numpy as np

import cntk as C
from cntk.io import CTFDeserializer, MinibatchSource, StreamDef, StreamDefs, INFINITELY_REPEAT
from cntk.layers import Dense, Embedding, LSTM, Recurrence, Sequential
from cntk.logging import ProgressPrinter

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--quick", action="store_true", help="a short run (for tests)")
parser.add_argument("--out", default=os.path.join("tutorial_output", "05_atis_slot_tagging"))
args = parser.parse_args()
C.cntk_py.set_fixed_random_seed(1)
rng = np.random.RandomState(0)

# --- 1. A small ATIS-like corpus ---------------------------------------------------------------------------
CITIES = ["boston", "denver", "atlanta", "dallas", "seattle", "chicago", "miami", "phoenix"]
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday"]
TEMPLATES = [
    "show flights from {from} to {to}",
    "show flights from {from} to {to} on {day}",
    "i want to fly to {to} from {from}",
    "what flights leave {from} on {day} for {to}",
    "list morning flights to {to}",
    "cheapest fare from {from} to {to} on {day} please",
]
SLOT_OF = {"from": "B-fromloc.city_name", "to": "B-toloc.city_name", "day": "B-depart_date.day_name"}
words = sorted({w for t in TEMPLATES for w in t.split() if not w.startswith("{")} | set(CITIES) | set(DAYS))
vocab = ["<unk>"] + words
slots = ["O"] + sorted(SLOT_OF.values())
word_index = {w: i for i, w in enumerate(vocab)}


def make_query():
    """One query as (words, tags)."""
    fill = {"from": rng.choice(CITIES), "to": rng.choice(CITIES), "day": rng.choice(DAYS)}
    tokens, tags = [], []
    for token in rng.choice(TEMPLATES).split():
        if token.startswith("{"):
            tokens.append(fill[token[1:-1]])
            tags.append(SLOT_OF[token[1:-1]])
        else:
            tokens.append(token)
            tags.append("O")
    return tokens, tags


def write_corpus(path, count):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        for sequence_id in range(count):
            for token, tag in zip(*make_query()):
                f.write("%d |S0 %d:1 |# %s\t|S2 %d:1 |# %s\n"
                        % (sequence_id, word_index[token], token, slots.index(tag), tag))
    return path


train_file = write_corpus(os.path.join(args.out, "atis.train.ctf"), 400 if args.quick else 4000)
test_file = write_corpus(os.path.join(args.out, "atis.test.ctf"), 100 if args.quick else 500)
with open(train_file) as f:
    print("".join(f.readlines()[:4]), end="")
vocab_size, num_labels = len(vocab), len(slots)


def create_reader(path, is_training):
    streams = StreamDefs(query=StreamDef(field="S0", shape=vocab_size, is_sparse=True),
                         slot_labels=StreamDef(field="S2", shape=num_labels, is_sparse=True))
    return MinibatchSource(CTFDeserializer(path, streams), randomize=is_training,
                           max_sweeps=INFINITELY_REPEAT if is_training else 1)


# --- 2. Model ----------------------------------------------------------------------------------------------
# Both inputs are sequences on the same dynamic axis: one tag per word.
query = C.sequence.input_variable(vocab_size, is_sparse=True)
slot_labels = C.sequence.input_variable(num_labels, is_sparse=True)

emb_dim, hidden_dim = 50, 60
# A tuple inside Sequential applies each of its members to the same input; splice joins their outputs, so
# every word sees the query's past (forward LSTM) and its future (backward LSTM).
model = Sequential([
    Embedding(emb_dim),
    (Recurrence(LSTM(hidden_dim)), Recurrence(LSTM(hidden_dim), go_backwards=True)),
    C.splice,
    Dense(num_labels),
])
z = model(query)
loss = C.cross_entropy_with_softmax(z, slot_labels)
error = C.classification_error(z, slot_labels)

# --- 3. Training -------------------------------------------------------------------------------------------
# Minibatch sizes count words (samples), not queries, as everywhere in CNTK: a minibatch of 200 holds as
# many whole queries as fit in 200 words.
epoch_size = 2000 if args.quick else 30000
num_epochs = 2 if args.quick else 6
minibatch_size = 200
# CNTK's recipe used Adam on a GPU: on CPU, CNTK 2.7 updates the sparse gradient of an Embedding fed
# one-hot words only with plain or momentum SGD ("Feature Not Implemented" otherwise). cntk-compat runs any
# learner here; momentum SGD keeps this script runnable under both. Clipping keeps early LSTM steps small.
learner = C.momentum_sgd(z.parameters, lr=C.learning_parameter_schedule_per_sample(0.1),
                         momentum=C.momentum_schedule(0.9), gradient_clipping_threshold_per_sample=15)
printer = ProgressPrinter(freq=0 if args.quick else 50, tag="Training", num_epochs=num_epochs)
trainer = C.Trainer(z, (loss, error), [learner], [printer])
C.logging.log_number_of_parameters(z)

reader = create_reader(train_file, True)
input_map = {query: reader.streams.query, slot_labels: reader.streams.slot_labels}
for epoch in range(num_epochs):
    seen = 0
    while seen < epoch_size:
        trainer.train_minibatch(reader.next_minibatch(minibatch_size, input_map=input_map))
        seen += trainer.previous_minibatch_sample_count
    trainer.summarize_training_progress()

# --- 4. Evaluation -----------------------------------------------------------------------------------------
reader_test = create_reader(test_file, False)
test_map = {query: reader_test.streams.query, slot_labels: reader_test.streams.slot_labels}
while True:
    data = reader_test.next_minibatch(500, input_map=test_map)
    if not data:
        break
    trainer.test_minibatch(data)
trainer.summarize_test_progress()      # "Finished Evaluation [1]: Minibatch[...]: metric = ...%"

# --- 5. Tagging a new query --------------------------------------------------------------------------------
# A sequence of sparse one-hot vectors: Value.one_hot turns lists of word indices into exactly that.
sentence = "show flights from denver to miami on friday".split()
indices = [word_index.get(w, 0) for w in sentence]
scores = z.eval({query: C.Value.one_hot([indices], vocab_size)})[0]
for token, tag in zip(sentence, np.argmax(scores, axis=1)):
    print("%-10s %s" % (token, slots[tag]))
