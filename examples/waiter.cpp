// Driving leases by hand with a Waiter: how a service that answers long-polls fetches only when
// something may be due, without polling Redis. One waiter per queue serves every caller; here a
// single loop prints and acks each message, and gives up after 30 s without one.
//
// usage: delayq_example_waiter QUEUE [REDIS_URL]
//        (default URL: $DELAYQ_REDIS_URL, else redis://127.0.0.1:6379)
#include <chrono>
#include <cstdio>
#include <delayq/delayq.hpp>
#include <string>

#include "redis_url.hpp"

int main(int argc, char** argv) {
    using namespace std::chrono_literals;
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s QUEUE [REDIS_URL]\n", argv[0]);
        return 2;
    }
    const std::string url = example_redis_url(argc, argv, 2);
    try {
        delayq::Client client{url};
        delayq::Leases leases = client.leases(argv[1]);
        delayq::Waiter waiter{leases};
        waiter.start();
        for (;;) {
            // Read before fetching: a firing between the fetch and the wait is not missed.
            const std::uint64_t seen = waiter.epoch();
            const delayq::FetchResult r = leases.fetch(10, 30s);
            for (const delayq::Delivery& d : r.deliveries) {
                std::printf("%s, %lld ms late: %s\n", d.id().c_str(),
                            static_cast<long long>(d.lateness().count()), d.payload().c_str());
                leases.ack(d.lease());
            }
            std::fflush(stdout);
            if (!r.deliveries.empty()) continue;
            waiter.note_fetch(r);  // aims the waiter at the next due time
            if (!waiter.wait(seen, std::chrono::steady_clock::now() + 30s)) {
                std::printf("nothing for 30 s\n");
                return 0;
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
