// Sent, delivered and acked per second, from successive polls of a queue's lifetime totals
// (GET /v1/queues/{queue}), over the server's clock (stats.now_ms).
export class Rates {
  constructor() {
    this.last = new Map();  // queue -> {at, totals}
  }

  // {sent, delivered, acked} per second since the last poll of `queue`, or null on the first.
  update(queue, detail) {
    const at = detail.stats.now_ms;
    const totals = detail.totals;
    const before = this.last.get(queue);
    this.last.set(queue, { at, totals });
    if (!before || at <= before.at) return before?.rates ?? null;
    const seconds = (at - before.at) / 1000;
    const per = (k) => Math.max(0, (totals[k] - before.totals[k]) / seconds);
    const rates = { sent: per('sent'), delivered: per('delivered'), acked: per('acked') };
    this.last.get(queue).rates = rates;
    return rates;
  }
}
