"""The computation behind CNTK's ForwardBackward (CTC) criterion, on padded batches (B, T, C).

The label sequence of an utterance comes from its label "graph" (labels_to_graph of frame-level one-hot
labels): a frame whose largest entry is 2 starts a phone, the phone being that entry's index
(HTKMLFDeserializer(phoneBoundaries=True) writes exactly this). Between and around the phones CNTK places
the blank token, giving 2N + 1 states per utterance of N phones: blank, p0, blank, p1, ..., p(N-1), blank.

The recursions are Graves et al.'s (2006) alpha and beta, in log space. A transition may skip the blank
between two phones when the phones differ; a phone whose id is the blank token id is treated as a blank.
CNTK's optional delay constraint (delayConstraint >= 0) forbids state s at frame t when t exceeds a limit
taken from the start frame of the state two places later (CNTK's definition, including its values at the
end of the utterance: the final blank's limit counts from frame 0), so that each phone is emitted within
delayConstraint frames after the next phone starts; alpha at the first frame and beta at the last are
never constrained (as in CNTK).

forward_backward_posteriors returns each utterance's log likelihood and the per-frame posterior of every
label, normalized to sum to 1 per frame: CNTK's gradient with respect to the network output is
softmax(output) - posterior.
"""
import torch

from ..core.sequence_masks import pack_by_counts

_PHONE_START = 2.0  # the label value that marks the first frame of a phone
# CNTK's log-space zero and the level under which a log value counts as zero: an utterance no alignment can
# explain gets a loss of 1e11 (not infinity) and a finite gradient, as in CNTK
LZERO, LSMALL = -1e11, -0.5e10


def phone_sequences(graph, mask):
    """(phones (B, N) long, start frames (B, N) long, phone counts (B,)) read from the label graph."""
    values, index = graph.max(-1)
    starts = ((values == _PHONE_START) & mask).long()
    frames = torch.arange(graph.shape[1], device=graph.device).expand_as(index)
    phones, phone_mask = pack_by_counts(index, starts)
    start_frames, _ = pack_by_counts(frames, starts)
    return phones, start_frames, phone_mask.sum(1)


def forward_backward_posteriors(graph, logp, mask, blank, delay):
    """(log likelihood (B,), posterior (B, T, C)) for label graphs and log-softmaxed outputs (B, T, C)."""
    phones, start_frames, counts = phone_sequences(graph, mask)
    lengths = mask.sum(1)
    if delay < 0 and bool((counts > 0).all()) and not bool(((phones == blank) & _valid(phones, counts)).any()):
        log_likelihood, posterior = _torch_ctc(logp, mask, phones, counts, lengths, blank)
        if bool(torch.isfinite(log_likelihood).all()):
            return log_likelihood, posterior
    return _lattice(logp, mask, phones, start_frames, counts, lengths, blank, delay)


def _valid(phones, counts):
    return torch.arange(phones.shape[1], device=phones.device)[None, :] < counts[:, None]


def _torch_ctc(logp, mask, phones, counts, lengths, blank):
    """Unconstrained CTC with torch's kernel: its gradient with respect to the log probabilities is
    exp(logp) - posterior, from which the posterior is read."""
    targets = phones[_valid(phones, counts)]
    with torch.enable_grad():
        lp = logp.detach().requires_grad_(True)
        nll = torch.nn.functional.ctc_loss(lp.transpose(0, 1), targets, lengths, counts, blank=blank,
                                           reduction="none", zero_infinity=False)
        (grad,) = torch.autograd.grad(nll.sum(), lp)
    posterior = torch.where(mask[..., None], logp.exp() - grad, torch.zeros_like(grad))
    return -nll.detach(), posterior


def _log_add(*values):
    total = torch.logsumexp(torch.stack(values), 0)
    return torch.where(total < LSMALL, torch.full_like(total, LZERO), total)


def _shift(x, k, fill, forward=True):
    """x moved k places along the state axis (toward higher states if forward), the vacated places filled."""
    pad = torch.full(x.shape[:-1] + (k,), fill, dtype=x.dtype, device=x.device)
    return torch.cat((pad, x[..., :-k]), -1) if forward else torch.cat((x[..., k:], pad), -1)


def _state_limits(start_frames, counts, lengths, is_blank, delay, n_states):
    """Per state s, the last frame it may occupy (or None for no constraint): the start frame of state s + 2
    plus delay, minus 1 for a blank; state s + 2 past the final blank reads frame 0, as CNTK does."""
    if delay < 0:
        return None
    index = torch.arange(n_states + 2, device=counts.device)[None, :].expand(counts.shape[0], -1)
    phone_start = start_frames.gather(1, (index // 2).clamp(max=max(start_frames.shape[1] - 1, 0))) \
        if start_frames.shape[1] else torch.zeros_like(index)
    bound = torch.where(index < 2 * counts[:, None], phone_start,
                        torch.where(index < 2 * counts[:, None] + 2, lengths[:, None], torch.zeros_like(phone_start)))
    limit = bound[:, 2:] + delay - is_blank.long()
    return torch.where(limit < 0, torch.full_like(limit, torch.iinfo(limit.dtype).max), limit)  # CNTK's size_t wrap


def _lattice(logp, mask, phones, start_frames, counts, lengths, blank, delay):
    batch, frames, _ = logp.shape
    n_states = 2 * phones.shape[1] + 1
    state = torch.arange(n_states, device=logp.device)[None, :]
    labels = torch.full((batch, n_states), blank, dtype=torch.long, device=logp.device)
    labels[:, 1::2] = phones
    valid = state < (2 * counts + 1)[:, None]
    is_blank = labels == blank
    # a skip from s - 2 into s: s a phone that differs from the phone before it
    skip_in = (state >= 2) & ~is_blank & (labels != _shift(labels, 2, -1))
    skip_out = ~is_blank & (labels != _shift(labels, 2, -1, forward=False))  # from s into s + 2
    limits = _state_limits(start_frames, counts, lengths, is_blank, delay, n_states)
    lp = logp.gather(2, labels[:, None, :].expand(batch, frames, n_states))  # (B, T, S)
    neg = LZERO

    def allowed(t):
        return valid if limits is None else valid & (t <= limits)

    alpha = [torch.where(valid & (state <= 1), lp[:, 0], neg)]
    for t in range(1, frames):
        prev = alpha[-1]
        step = _log_add(prev, _shift(prev, 1, neg), torch.where(skip_in, _shift(prev, 2, neg), neg)) + lp[:, t]
        alpha.append(torch.where(allowed(t), step, neg))
    last = (lengths - 1)[:, None]
    final = valid & (state >= 2 * counts[:, None] - 1)
    beta = [None] * frames
    nxt = torch.full((batch, n_states), neg, dtype=logp.dtype, device=logp.device)
    for t in range(frames - 1, -1, -1):
        step = _log_add(nxt, _shift(nxt, 1, neg, forward=False),
                        torch.where(skip_out, _shift(nxt, 2, neg, forward=False), neg)) + lp[:, t]
        step = torch.where(allowed(t), step, neg)
        nxt = torch.where(t == last, torch.where(final, lp[:, t], neg), torch.where(t < last, step, neg))
        beta[t] = nxt
    alpha, beta = torch.stack(alpha, 1), torch.stack(beta, 1)  # (B, T, S)
    first = beta[:, 0, :2] if n_states > 1 else beta[:, 0, :1]
    log_likelihood = _log_add(*first.unbind(-1))
    occupancy = (alpha + beta - lp - log_likelihood[:, None, None]).exp()
    occupancy = torch.where(mask[..., None] & valid[:, None, :], occupancy, torch.zeros_like(occupancy))
    posterior = torch.zeros_like(logp).scatter_add_(2, labels[:, None, :].expand_as(occupancy), occupancy)
    total = posterior.sum(-1, keepdim=True)
    posterior = torch.where(total > 0, posterior / torch.where(total > 0, total, torch.ones_like(total)),
                            torch.zeros_like(posterior))
    return log_likelihood, posterior
