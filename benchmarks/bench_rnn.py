"""Recurrent models: one training step (forward, backward, adam) of cntk-compat vs the same model hand-written in
PyTorch, in one process, from the same initial weights and the same minibatches.

Workloads (batch of one-hot word sequences, vocabulary VOCAB, embedding EMBED):
- lstm:    Embedding -> Recurrence(LSTM(128)) -> sequence.last -> Dense, lengths 5..60, batch 32
           vs nn.Embedding + nn.LSTM over packed sequences + Linear;
- lm:      Embedding(256) -> 2 x Recurrence(LSTM(256)) -> Dense(VOCAB) per step, T=35, batch 20
           vs nn.LSTM(num_layers=2);
- gru:     as lstm with GRU(128) vs nn.GRU (CNTK's GRU applies the reset gate before the recurrent product,
           torch's after it: the same cost, not the same function, so only the speed is compared);
- rnn:     as lstm with RNNStep(128, activation=tanh) vs nn.RNN (same function, first loss checked);
- bilstm:  per-token tagger: Embedding -> splice(Recurrence(LSTM(128)), Recurrence(LSTM(128), go_backwards=True))
           -> Dense(tags), lengths 5..60, batch 32, vs nn.LSTM(bidirectional=True) packed;
- peephole: as lstm with LSTM(128, use_peepholes=True) (CNTK's generic loop) vs a hand-written torch cell
           with the input projection hoisted out of its Python step loop.
The CNTK side is fed one-hot sparse Values (as a reader delivers them), the torch side index tensors.
For the LSTM workloads the first loss of both sides is checked to agree (same function, same weights).

Both sides compute the loss and the classification error of every minibatch (the Trainer's criterion pair).
Timing: alternating rounds, median per step, process CPU time and wall time. Goal: every ratio <= 1.00.
On CUDA (--device cuda) both sides start each step from the same host arrays (ours from the reader's Values,
the torch side copies its index tensors over), and wall time is the figure: process CPU time there counts the
host's waits on the GPU.
Usage: python benchmarks/bench_rnn.py [--rounds R] [--steps N] [--threads N] [--only lstm,lm,...]
       [--device cpu|cuda]
"""
import argparse

import numpy as np
import torch

import cntk as C
from bench_latency import compare

VOCAB, EMBED, CLASSES = 300, 64, 10


def _batches(rng, count, batch, lengths, vocab, per_token_classes=None):
    out = []
    for _ in range(count):
        lens = rng.integers(lengths[0], lengths[1] + 1, batch) if lengths[0] != lengths[1] else \
            np.full(batch, lengths[0])
        words = [rng.integers(0, vocab, n) for n in lens]
        if per_token_classes:
            labels = [rng.integers(0, per_token_classes, n) for n in lens]
        else:
            labels = rng.integers(0, CLASSES, batch)
        out.append((lens, words, labels))
    return out


def _cntk_feed(x, y, batch, n_labels, per_token):
    lens, words, labels = batch
    xs = C.Value.one_hot([w.tolist() for w in words], VOCAB)
    if per_token:
        ys = C.Value.one_hot([lab.tolist() for lab in labels], n_labels)
    else:
        ys = np.eye(n_labels, dtype=np.float32)[labels]
    return {x: xs, y: ys}


def _torch_feed(batch, per_token):
    lens, words, labels = batch
    padded = np.zeros((len(words), max(lens)), np.int64)
    for i, w in enumerate(words):
        padded[i, :len(w)] = w
    if per_token:
        target = torch.from_numpy(np.concatenate(labels))  # in the packed order of the mask, row by row
    else:
        target = torch.from_numpy(np.asarray(labels))
    return torch.from_numpy(padded), torch.as_tensor(lens), target


def _lstm_weights_to_torch(lstm_module, layer_suffix, W, H, b):
    """CNTK's LSTM parameters (gate blocks i, c, f, o along the last axis) into an nn.LSTM layer (i, f, c, o)."""
    def reorder(m):
        i, c, f, o = np.split(m, 4, axis=-1)
        return np.concatenate([i, f, c, o], axis=-1)
    with torch.no_grad():
        getattr(lstm_module, "weight_ih" + layer_suffix).copy_(torch.from_numpy(reorder(W.value).T))
        getattr(lstm_module, "weight_hh" + layer_suffix).copy_(torch.from_numpy(reorder(H.value).T))
        getattr(lstm_module, "bias_ih" + layer_suffix).copy_(torch.from_numpy(reorder(b.value)))
        getattr(lstm_module, "bias_hh" + layer_suffix).zero_()


def _cell_params(f):
    """(W, H, b) of the (one) recurrent cell below Function f, by parameter name."""
    by_name = {p.name: p for p in f.parameters}
    return by_name["W"], by_name["H"], by_name["b"]


def _trainer(z, y, per_token):
    loss = C.cross_entropy_with_softmax(z, y)
    metric = C.classification_error(z, y)
    return C.Trainer(z, (loss, metric), [C.adam(z.parameters, C.learning_parameter_schedule_per_sample(0.001),
                                                C.momentum_schedule(0.9))])


def _torch_step(parameters, forward, device):
    opt = torch.optim.Adam(parameters, lr=0.001, foreach=True)

    def step(feed):
        words, lens, labels = feed
        opt.zero_grad(set_to_none=True)
        # lengths stay on the host: pack_padded_sequence wants them there
        loss, errors = forward(words.to(device, non_blocking=True), lens, labels.to(device, non_blocking=True))
        loss.backward()
        opt.step()
        return loss.detach(), errors
    return step


def _loss_and_errors(logits, labels):
    """The summed cross entropy, and the error count the Trainer's metric computes on every minibatch."""
    loss = torch.nn.functional.cross_entropy(logits, labels, reduction="sum")
    return loss, (logits.detach().argmax(-1) != labels).sum()


def classifier(kind, rng, args):
    """(cntk step, torch step, first-loss pair or None) for the lstm / gru / peephole classifiers."""
    x = C.sequence.input_variable(VOCAB, is_sparse=True)
    y = C.input_variable(CLASSES)
    cell = {"lstm": lambda: C.layers.LSTM(128), "gru": lambda: C.layers.GRU(128),
            "rnn": lambda: C.layers.RNNStep(128, activation=C.tanh),
            "peephole": lambda: C.layers.LSTM(128, use_peepholes=True)}[kind]()
    embed, recur, dense = C.layers.Embedding(EMBED), C.layers.Recurrence(cell), C.layers.Dense(CLASSES)
    z = dense(C.sequence.last(recur(embed(x))))
    trainer = _trainer(z, y, False)
    E = embed.parameters[0].value

    emb = torch.nn.Embedding(VOCAB, EMBED)
    lin = torch.nn.Linear(128, CLASSES)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(E))
        lin.weight.copy_(torch.from_numpy(dense.W.value.T))
        lin.bias.copy_(torch.from_numpy(dense.b.value))
    if kind == "peephole":
        net, params = _peephole_cell(recur), [emb.weight, lin.weight, lin.bias]
        params += list(net.parameters())

        def last_h(e, lens):
            return net(e, lens)
    else:
        net = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn": torch.nn.RNN}[kind](EMBED, 128, batch_first=True)
        if kind == "lstm":
            _lstm_weights_to_torch(net, "_l0", *_cell_params(recur))
        if kind == "rnn":
            W, H, b = _cell_params(recur)
            with torch.no_grad():
                net.weight_ih_l0.copy_(torch.from_numpy(W.value.T))
                net.weight_hh_l0.copy_(torch.from_numpy(H.value.T))
                net.bias_ih_l0.copy_(torch.from_numpy(b.value))
                net.bias_hh_l0.zero_()
        params = [emb.weight, lin.weight, lin.bias] + list(net.parameters())

        def last_h(e, lens):
            packed = torch.nn.utils.rnn.pack_padded_sequence(e, lens, batch_first=True, enforce_sorted=False)
            return net(packed)[1][0][0] if kind == "lstm" else net(packed)[1][0]

    def forward(words, lens, labels):
        return _loss_and_errors(lin(last_h(emb(words), lens)), labels)

    batches = _batches(rng, args.steps, 32, (5, 60), VOCAB)
    for module in (emb, lin, net):
        module.to(args.device)
    return _pair(trainer, x, y, CLASSES, False, batches, forward, params, kind != "gru", args.device)


class _PeepholeCell(torch.nn.Module):
    """CNTK's LSTM with peepholes, hand-written: x·W + b for all steps at once, then a Python step loop."""

    def __init__(self, W, H, b, Ci, Cf, Co):
        super().__init__()
        for name, value in (("W", W), ("H", H), ("b", b), ("Ci", Ci), ("Cf", Cf), ("Co", Co)):
            setattr(self, name, torch.nn.Parameter(torch.from_numpy(value.copy())))

    def forward(self, e, lens):
        batch, steps = e.shape[0], e.shape[1]
        d = self.H.shape[0]
        projected = torch.matmul(e, self.W) + self.b
        h = e.new_zeros(batch, d)
        c = e.new_zeros(batch, d)
        valid = (torch.arange(steps, device=e.device)[None, :] < lens.to(e.device)[:, None]).unsqueeze(-1)
        for t in range(steps):
            gates = projected[:, t] + h @ self.H
            i, g, f, o = gates.split(d, dim=1)
            c_new = torch.sigmoid(f + self.Cf * c) * c + torch.sigmoid(i + self.Ci * c) * torch.tanh(g)
            h_new = torch.sigmoid(o + self.Co * c_new) * torch.tanh(c_new)
            h = torch.where(valid[:, t], h_new, h)
            c = torch.where(valid[:, t], c_new, c)
        return h


def _peephole_cell(recur):
    by_name = {p.name: p.value for p in recur.parameters}
    return _PeepholeCell(*(by_name[n] for n in ("W", "H", "b", "Ci", "Cf", "Co")))


def language_model(rng, args):
    x = C.sequence.input_variable(VOCAB, is_sparse=True)
    y = C.sequence.input_variable(VOCAB, is_sparse=True)
    embed = C.layers.Embedding(256)
    layers = [C.layers.Recurrence(C.layers.LSTM(256)) for _ in range(2)]
    dense = C.layers.Dense(VOCAB)
    z = dense(layers[1](layers[0](embed(x))))
    trainer = _trainer(z, y, True)
    emb = torch.nn.Embedding(VOCAB, 256)
    net = torch.nn.LSTM(256, 256, num_layers=2, batch_first=True)
    lin = torch.nn.Linear(256, VOCAB)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(embed.parameters[0].value))
        lin.weight.copy_(torch.from_numpy(dense.W.value.T))
        lin.bias.copy_(torch.from_numpy(dense.b.value))
    for k, layer in enumerate(layers):
        _lstm_weights_to_torch(net, "_l%d" % k, *_cell_params(layer))

    def forward(words, lens, labels):
        out = net(emb(words))[0]  # every sequence has the full length T
        return _loss_and_errors(lin(out).reshape(-1, VOCAB), labels)

    batches = _batches(rng, args.steps, 20, (35, 35), VOCAB, per_token_classes=VOCAB)
    for module in (emb, lin, net):
        module.to(args.device)
    params = list(emb.parameters()) + list(net.parameters()) + list(lin.parameters())
    return _pair(trainer, x, y, VOCAB, True, batches, forward, params, True, args.device)


def bilstm_tagger(rng, args):
    tags = 20
    x = C.sequence.input_variable(VOCAB, is_sparse=True)
    y = C.sequence.input_variable(tags, is_sparse=True)
    embed = C.layers.Embedding(EMBED)
    fwd, bwd = C.layers.Recurrence(C.layers.LSTM(128)), C.layers.Recurrence(C.layers.LSTM(128), go_backwards=True)
    dense = C.layers.Dense(tags)
    e = embed(x)
    z = dense(C.splice(fwd(e), bwd(e)))
    trainer = _trainer(z, y, True)
    emb = torch.nn.Embedding(VOCAB, EMBED)
    net = torch.nn.LSTM(EMBED, 128, batch_first=True, bidirectional=True)
    lin = torch.nn.Linear(256, tags)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(embed.parameters[0].value))
        lin.weight.copy_(torch.from_numpy(dense.W.value.T))
        lin.bias.copy_(torch.from_numpy(dense.b.value))
    _lstm_weights_to_torch(net, "_l0", *_cell_params(fwd))
    _lstm_weights_to_torch(net, "_l0_reverse", *_cell_params(bwd))

    def forward(words, lens, labels):
        packed = torch.nn.utils.rnn.pack_padded_sequence(emb(words), lens, batch_first=True, enforce_sorted=False)
        out, _ = torch.nn.utils.rnn.pad_packed_sequence(net(packed)[0], batch_first=True)
        valid = torch.arange(out.shape[1], device=out.device)[None, :] < lens.to(out.device)[:, None]
        return _loss_and_errors(lin(out[valid]), labels)

    batches = _batches(rng, args.steps, 32, (5, 60), VOCAB, per_token_classes=tags)
    for module in (emb, lin, net):
        module.to(args.device)
    params = list(emb.parameters()) + list(net.parameters()) + list(lin.parameters())
    return _pair(trainer, x, y, tags, True, batches, forward, params, True, args.device)


def _pair(trainer, x, y, n_labels, per_token, batches, forward, params, check_loss, device):
    cntk_feeds = [_cntk_feed(x, y, b, n_labels, per_token) for b in batches]
    torch_feeds = [_torch_feed(b, per_token) for b in batches]
    torch_step = _torch_step(params, forward, device)
    first = None
    if check_loss:
        words, lens, labels = torch_feeds[0]
        with torch.no_grad():
            theirs = float(forward(words.to(device), lens, labels.to(device))[0])
        trainer.train_minibatch(cntk_feeds[0])
        ours = trainer.previous_minibatch_loss_average * trainer.previous_minibatch_sample_count
        first = (ours, theirs)
    state = {"k": 0}

    def ours():
        trainer.train_minibatch(cntk_feeds[state["k"] % len(cntk_feeds)])
        state["k"] += 1

    def theirs():
        torch_step(torch_feeds[state["k"] % len(torch_feeds)])
        state["k"] += 1
    return ours, theirs, first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=4, help="training steps per timed round")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--only", default="lstm,lm,gru,rnn,bilstm,peephole")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    C.device.try_set_default_device(C.device.gpu(0) if args.device == "cuda" else C.device.cpu())
    clock = "wall" if args.device == "cuda" else "cpu"
    print("torch %s, %d threads, device %s; cntk-compat / torch per training step, median of %d alternating "
          "rounds of %d" % (torch.__version__, torch.get_num_threads(), args.device, args.rounds, args.steps))
    builders = {"lstm": lambda rng: classifier("lstm", rng, args), "lm": lambda rng: language_model(rng, args),
                "gru": lambda rng: classifier("gru", rng, args), "rnn": lambda rng: classifier("rnn", rng, args),
                "bilstm": lambda rng: bilstm_tagger(rng, args),
                "peephole": lambda rng: classifier("peephole", rng, args)}
    ratios = []
    for name in args.only.split(","):
        ours, theirs, first = builders[name](np.random.default_rng(0))
        if first is not None:
            np.testing.assert_allclose(first[0], first[1], rtol=1e-4)
        oc, tc, ow, tw = compare(ours, theirs, args.steps, args.rounds, args.device)
        ratios.append("%s %.2fx" % (name, ow / tw if clock == "wall" else oc / tc))
        print("%-9s cpu %8.2f ms vs %8.2f ms  ratio %.2fx | wall %8.2f ms vs %8.2f ms  ratio %.2fx%s"
              % (name, oc * 1e3, tc * 1e3, oc / tc, ow * 1e3, tw * 1e3, ow / tw,
                 "" if first is None else "  (first loss %.4f vs %.4f)" % first))
    print("rnn ratios (%s time, %s, goal <= 1.00): %s" % (clock, args.device, ", ".join(ratios)))


if __name__ == "__main__":
    main()
