#include "model/driver.hpp"

#include <algorithm>
#include <exception>
#include <numeric>
#include <sstream>
#include <utility>

namespace delayq::model {
namespace {

// Operations shown in a failure's report: enough to replay the story by eye.
constexpr std::size_t kLogLines = 40;
// Differences shown: the first few explain it; the rest follow from them.
constexpr std::size_t kDiffLines = 40;
// Messages in a queue from which it takes no more sends until it has fewer.
constexpr std::size_t kFullQueue = 60;
// Ids remembered for operations on ids that may have gone.
constexpr std::size_t kHistory = 300;
// Every this many steps every id is looked up, and the other queues are compared too.
constexpr std::size_t kThoroughEvery = 50;
// Of the steps whose one call a fault may cut, the share the relay cuts (of the first
// client's), and the share a CLIENT KILL races.
constexpr double kCutShare = 0.1;
constexpr double kKillShare = 0.03;

std::vector<Handles> handles_of(const std::vector<const Client*>& clients,
                                const std::string& name) {
    std::vector<Handles> out;
    for (const Client* c : clients) out.emplace_back(*c, name);
    return out;
}

}  // namespace

Handles::Handles(const Client& client, const std::string& name)
    : queue(client.queue(name)),
      small(client.queue(name, QueueOptions{.max_payload_bytes = kSmallPayloadLimit})),
      admin(client.admin(name)),
      leases(client.leases(name)),
      push(client.push_targets(name)) {}

Target::Target(const std::vector<const Client*>& clients, const std::string& name)
    : model(name),
      handles(handles_of(clients, name)),
      queue(handles.front().queue),
      small(handles.front().small),
      admin(handles.front().admin),
      leases(handles.front().leases),
      push(handles.front().push) {}

void Target::use(std::size_t i) {
    queue = handles.at(i).queue;
    small = handles.at(i).small;
    admin = handles.at(i).admin;
    leases = handles.at(i).leases;
    push = handles.at(i).push;
}

Driver::Driver(std::uint64_t seed, Redis redis, std::vector<const Client*> clients,
               FakeClock& clock, const std::vector<std::string>& queues, bool known_bugs,
               Faults faults)
    : seed_(seed),
      known_bugs_(known_bugs),
      rng_(seed),
      redis_(redis),
      clients_(std::move(clients)),
      client_(clients_.front()),
      faults_(faults),
      clock_(clock),
      start_ms_(clock.now_ms()) {
    for (const std::string& name : queues) {
        targets_.push_back(std::make_unique<Target>(clients_, name));
        targets_.back()->model.set_now_us(clock.now_us());
    }
}

const std::vector<Driver::WeightedOp>& Driver::ops() {
    static const std::vector<WeightedOp> all = {
        {"advance_clock", 48, &Driver::advance_clock},
        {"send", 36, &Driver::send_one},
        {"send_batch", 12, &Driver::send_many},
        {"cancel", 12, &Driver::cancel},
        {"reschedule", 15, &Driver::reschedule},
        {"fetch", 42, &Driver::fetch},
        {"ack", 21, &Driver::ack},
        {"nack", 21, &Driver::nack},
        {"reject", 6, &Driver::reject},
        {"extend", 12, &Driver::extend},
        {"release", 9, &Driver::release},
        {"lease_text", 3, &Driver::lease_text},
        {"get", 6, &Driver::get},
        {"list_limits", 3, &Driver::list_limits},
        {"requeue", 9, &Driver::requeue},
        {"purge", 6, &Driver::purge},
        {"update_settings", 9, &Driver::update_settings},
        {"pause_or_resume", 3, &Driver::pause_or_resume},
        {"delete_queue", 1, &Driver::delete_queue},
        {"server_view", 3, &Driver::server_view},
        {"push_set", 4, &Driver::push_set},
        {"push_remove", 1, &Driver::push_remove},
        {"push_lease", 24, &Driver::push_lease},
        {"push_settle", 24, &Driver::push_settle},
        {"schedule_put", 6, &Driver::schedule_put},
        {"schedule_pause_or_resume", 3, &Driver::schedule_pause_or_resume},
        {"schedule_remove", 1, &Driver::schedule_remove},
        {"schedule_trigger", 2, &Driver::schedule_trigger},
        {"schedule_claim", 12, &Driver::schedule_claim},
        {"crash_redis", 1, &Driver::crash_redis},
        {"failover", 2, &Driver::failover},
    };
    return all;
}

std::string Driver::run(std::size_t steps) {
    for (step_ = 1; step_ <= steps; ++step_) {
        try {
            step();
        } catch (const std::exception& e) {
            return report(std::string("unexpected exception: ") + e.what());
        }
        if (!diff_.empty()) return report("the queue and the model differ");
    }
    return "";
}

void Driver::step() {
    ++counts_.operations;
    if (follow_up_ != nullptr) {
        Target& t = *follow_up_target_;
        (this->*std::exchange(follow_up_, nullptr))(t);
        follow_up_id_.clear();
        if (diff_.empty()) check(t, false);
        return;
    }
    // The first queue gets most of the traffic; the others show that nothing leaks across.
    Target& t = *targets_[rng_.chance(0.8) ? 0 : rng_.index(targets_.size())];
    // Each step on one of the clients, as several processes would share the queues.
    const std::size_t c = rng_.index(clients_.size());
    client_ = clients_[c];
    for (auto& target : targets_) target->use(c);
    // A full queue takes no sends until it drains: the comparison of every step grows with it.
    const bool full = t.model.messages().size() >= kFullQueue;
    std::vector<WeightedOp> allowed;
    for (const WeightedOp& op : ops()) {
        if (full && (op.run == &Driver::send_one || op.run == &Driver::send_many)) continue;
        if (!faults_.crashes && op.run == &Driver::crash_redis) continue;
        if (!faults_.failovers && op.run == &Driver::failover) continue;
        allowed.push_back(op);
    }
    const int total =
        std::accumulate(allowed.begin(), allowed.end(), 0,
                        [](int sum, const WeightedOp& op) { return sum + op.weight; });
    std::int64_t r = rng_.between(0, total - 1);
    for (const WeightedOp& op : allowed) {
        if (r < op.weight) {
            if (faults_.cuts != nullptr && c == 0 && cuttable(op.run) && rng_.chance(kCutShare)) {
                cut_call(t, op.run);
            } else if (faults_.connection_kills && cuttable(op.run) && rng_.chance(kKillShare)) {
                kill_connections(t, op.run);
            } else {
                (this->*op.run)(t);
            }
            break;
        }
        r -= op.weight;
    }
    if (!diff_.empty()) return;
    const bool thorough = step_ % kThoroughEvery == 0;
    check(t, thorough);
    if (thorough) {
        for (auto& other : targets_) {
            if (other.get() != &t) check(*other, true);
        }
    }
}

void Driver::note(const Target& t, const std::string& what) {
    std::ostringstream line;
    line << "step " << step_ << " t=+" << (clock_.now_ms() - start_ms_) << "ms " << t.model.name()
         << ": " << what;
    log_.push_back(line.str());
    if (log_.size() > kLogLines) log_.pop_front();
}

void Driver::result(const std::string& what) {
    if (!log_.empty()) log_.back() += " -> " + what;
}

void Driver::tally(const std::string& what, std::uint64_t n) {
    if (n > 0) tallies_[what] += n;
}

void Driver::tally(std::string_view op, const std::vector<LeaseResult>& results) {
    for (const LeaseResult& r : results) tally(std::string(op) + " -> " + show(r.status));
}

std::string Driver::summary() const {
    Totals t = deleted_totals_;
    for (const auto& target : targets_) {
        const Totals& m = target->model.stats().totals;
        t.sent += m.sent;
        t.delivered += m.delivered;
        t.acked += m.acked;
        t.retried += m.retried;
        t.dead_lettered += m.dead_lettered;
        t.expired += m.expired;
        t.cancelled += m.cancelled;
        t.released += m.released;
        t.requeued += m.requeued;
        t.purged += m.purged;
        t.dead_trimmed += m.dead_trimmed;
    }
    std::ostringstream out;
    out << "seed " << seed_ << ", " << step_ - 1 << " steps: sent " << t.sent << ", delivered "
        << t.delivered << ", acked " << t.acked << ", retried " << t.retried << ", dead_lettered "
        << t.dead_lettered << " (expired " << t.expired << "), cancelled " << t.cancelled
        << ", released " << t.released << ", requeued " << t.requeued << ", purged " << t.purged
        << ", dead_trimmed " << t.dead_trimmed << "\n";
    for (const auto& [what, n] : tallies_) out << "  " << what << ": " << n << "\n";
    return out.str();
}

std::string Driver::report(std::string_view why) const {
    std::ostringstream out;
    out << why << " at step " << step_ << " of seed " << seed_
        << " (replay: DELAYQ_MODEL_SEED=" << seed_ << ")\nlast operations:\n";
    for (const std::string& line : log_) out << "  " << line << "\n";
    out << "differences:\n";
    const auto& lines = diff_.lines();
    for (std::size_t i = 0; i < std::min(lines.size(), kDiffLines); ++i) {
        out << "  " << lines[i] << "\n";
    }
    if (lines.size() > kDiffLines) out << "  (" << lines.size() - kDiffLines << " more)\n";
    return out.str();
}

IdPool Driver::ids(const Target& t) const {
    IdPool pool;
    for (const auto& [id, m] : t.model.messages()) pool.current.push_back(id);
    pool.history = t.history;
    return pool;
}

Lease Driver::pick_lease(Target& t) {
    const std::int64_t r = rng_.between(0, 99);
    const std::vector<Lease> held = t.model.held_leases();
    for (const Lease& l : held) {
        if (l.id() == follow_up_id_) return l;
    }
    if (r < 75 && !held.empty()) return rng_.pick(held);
    if (r < 93 && !t.seen_leases.empty()) return rng_.pick(t.seen_leases);
    // Leases no fetch handed out: a token never issued, the token 0, one wider than a
    // sequence key, an id with no message.
    const IdPool pool = ids(t);
    const std::string id = pick_id(rng_, pool);
    switch (rng_.between(0, 3)) {
        case 0:
            return Lease(id, static_cast<std::uint64_t>(rng_.between(1, 1000)));
        case 1:
            return Lease(id, 0);
        case 2:
            return Lease(id, std::uint64_t{1} << 60U);
        default:
            return Lease("no-such-message", t.last_token);
    }
}

std::vector<Lease> Driver::pick_leases(Target& t) {
    std::vector<Lease> out;
    if (rng_.chance(0.01)) {
        out.assign(kMaxBatch + 1, pick_lease(t));  // too many: refused
        return out;
    }
    const std::int64_t n = rng_.between(0, 5);
    for (std::int64_t i = 0; i < n; ++i) out.push_back(pick_lease(t));
    if (!out.empty() && rng_.chance(0.2)) out.push_back(out.front());  // named twice
    return out;
}

void Driver::remember(Target& t, const std::vector<SendResult>& sent) {
    for (const SendResult& r : sent) {
        if (std::find(t.history.begin(), t.history.end(), r.id) == t.history.end()) {
            t.history.push_back(r.id);
        }
    }
    if (t.history.size() > kHistory) {
        t.history.erase(t.history.begin(), t.history.begin() + static_cast<std::ptrdiff_t>(
                                                                   t.history.size() - kHistory));
    }
}

}  // namespace delayq::model
