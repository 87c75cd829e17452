"""The losses of the recipes: KL of the teacher's over the student's in-batch distributions, RoDR's query- and passage-centred alignment terms, Margin-MSE distillation."""
from __future__ import annotations


def kl_rows(teacher_logits, student_logits, mask):
    """Mean over rows of KL(softmax(teacher) || softmax(student)), masked entries excluded."""
    import torch

    t = torch.log_softmax(teacher_logits.masked_fill(mask, float("-inf")), dim=-1)
    s = torch.log_softmax(student_logits.masked_fill(mask, float("-inf")), dim=-1)
    term = torch.where(mask, torch.zeros_like(s), t.exp() * (t - s))
    return term.sum(dim=-1).mean()


def rodr_losses(q_n, p_n, q_o, p_o, n_queries: int, mask, temperature: float, cosine: bool,
                passage_rows: str = "all"):
    """The three RoDR terms for one batch.

    ``q_n``: DR_N vectors of the B query variations; ``p_n``: DR_N vectors of the passage columns
    (the B positives first, then the hard negatives); ``q_o``/``p_o``: DR_O's vectors of the
    original queries and the same columns (or None for the NLL-only recipes). ``passage_rows``:
    the passages p_j that centre a passage-centred distribution (over the B queries): "all" the
    in-batch passages, positives and hard negatives (the paper: every p_j in P), or "positives"
    the first B only. Returns ``(l_nll, l_query, l_passage)`` (the last two None without a
    teacher)."""
    import torch

    if cosine:
        q_n = torch.nn.functional.normalize(q_n, dim=-1)
        p_n = torch.nn.functional.normalize(p_n, dim=-1)
    s_n = q_n @ p_n.T / temperature
    target = torch.arange(n_queries, device=s_n.device)
    mask = mask.to(s_n.device)
    l_nll = torch.nn.functional.cross_entropy(s_n.masked_fill(mask, float("-inf")), target)
    if q_o is None:
        return l_nll, None, None
    if cosine:
        q_o = torch.nn.functional.normalize(q_o, dim=-1)
        p_o = torch.nn.functional.normalize(p_o, dim=-1)
    s_o = q_o @ p_o.T / temperature
    l_query = kl_rows(s_o, s_n, mask)
    rows = s_n.shape[1] if passage_rows == "all" else n_queries
    l_passage = kl_rows(s_o[:, :rows].T, s_n[:, :rows].T, mask[:, :rows].T)
    return l_nll, l_query, l_passage


def margin_mse(q_s, p_pos_s, p_neg_s, q_t, p_pos_t, p_neg_t, cosine: bool):
    """Margin-MSE (Hofstaetter et al., 2020): mean over (query, positive, negative) triples of
    ((s_S(q,p+) - s_S(q,p-)) - (s_T(q,p+) - s_T(q,p-)))^2 with raw similarities (no temperature);
    the teacher's margins are constants."""
    import torch

    def sim(q, p):
        if cosine:
            q, p = torch.nn.functional.normalize(q, dim=-1), torch.nn.functional.normalize(p, dim=-1)
        return (q * p).sum(-1)

    student = sim(q_s, p_pos_s) - sim(q_s, p_neg_s)
    with torch.no_grad():
        target = sim(q_t, p_pos_t) - sim(q_t, p_neg_t)
    return torch.nn.functional.mse_loss(student, target)
