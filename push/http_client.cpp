#include "push/http_client.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "delayq/error.hpp"
#include "delayq/limits.hpp"
#include "delayq/version.hpp"

namespace delayq::push {
// The transfers' types: named, as HttpClient::Impl holds them.
namespace transfer {

struct EasyDelete {
    void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct ListDelete {
    void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using Easy = std::unique_ptr<CURL, EasyDelete>;
using HeaderList = std::unique_ptr<curl_slist, ListDelete>;

// One request from submit() to its callback.
struct Transfer {
    HttpRequest request;
    HttpClient::Done done;
    Easy easy;
    HeaderList headers;
    HttpAnswer answer;
    const PushNetwork* network = nullptr;
    bool opened = false;  // a socket was opened: a failure is the connection's, not the network's
    std::string refusal;  // why each refused address was, "; " between them
};

}  // namespace transfer

using transfer::Easy;
using transfer::Transfer;

namespace {

// libcurl's global state, once per process, before any handle (curl_global_init is not
// thread-safe against itself).
void init_curl_once() {
    static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        throw Error(std::string("push: libcurl could not start: ") + curl_easy_strerror(code));
    }
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* t = static_cast<Transfer*>(user);
    const std::size_t bytes = size * count;
    std::string& body = t->answer.body;
    const std::size_t room = kAnswerBodyKept - std::min(body.size(), kAnswerBodyKept);
    // All of it is read, so that the connection stays reusable; an excerpt is kept.
    body.append(data, std::min(room, bytes));
    return bytes;
}

std::optional<std::string> address_text(const curl_sockaddr& address) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* where = nullptr;
    if (address.family == AF_INET) {
        where = &reinterpret_cast<const sockaddr_in*>(&address.addr)->sin_addr;
    } else if (address.family == AF_INET6) {
        where = &reinterpret_cast<const sockaddr_in6*>(&address.addr)->sin6_addr;
    } else {
        return std::nullopt;
    }
    if (inet_ntop(address.family, where, text, sizeof text) == nullptr) return std::nullopt;
    return std::string(text);
}

// The check at connect time, on the address actually connected to: a host name may resolve
// to a refused address whatever the URL said when the target was set.
curl_socket_t open_socket(void* user, curlsocktype /*purpose*/, curl_sockaddr* address) {
    auto* t = static_cast<Transfer*>(user);
    const std::optional<std::string> text = address_text(*address);
    std::optional<std::string> refusal;
    if (!text) {
        refusal = "not an IP address";
    } else {
        try {
            refusal = push_address_refusal(*text, *t->network);
        } catch (const Error& e) {
            refusal = e.what();
        }
    }
    if (refusal) {
        // push_address_refusal names the address itself.
        const std::string why =
            text && refusal->find(*text) == std::string::npos ? *text + ": " + *refusal : *refusal;
        if (t->refusal.find(why) == std::string::npos) {
            t->refusal += (t->refusal.empty() ? "" : "; ") + why;
        }
        return CURL_SOCKET_BAD;
    }
    t->opened = true;
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

template <typename T>
void set(CURL* easy, CURLoption option, T value) {
    const CURLcode code = curl_easy_setopt(easy, option, value);
    if (code != CURLE_OK) {
        throw Error(std::string("push: libcurl refused an option: ") + curl_easy_strerror(code));
    }
}

TransportFailure failure_of(CURLcode code) {
    switch (code) {
        case CURLE_OPERATION_TIMEDOUT:
            return TransportFailure::kTimeout;
        case CURLE_COULDNT_CONNECT:
            return TransportFailure::kConnectionRefused;
        case CURLE_COULDNT_RESOLVE_HOST:
            return TransportFailure::kDnsFailure;
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_CRL_BADFILE:
            return TransportFailure::kTlsFailure;
        case CURLE_WEIRD_SERVER_REPLY:
        case CURLE_UNSUPPORTED_PROTOCOL:
        case CURLE_HTTP2:
        case CURLE_HTTP2_STREAM:
            return TransportFailure::kMalformedAnswer;
        default:
            return TransportFailure::kConnectionReset;
    }
}

}  // namespace

PushVerdict HttpAnswer::verdict() const {
    if (!failure) return judge_answer(status, body);
    return judge_failure(TransportError{*failure, failure_detail, timeout});
}

struct HttpClient::Impl {
    explicit Impl(HttpClientOptions o) : options(std::move(o)) {
        init_curl_once();
        multi = curl_multi_init();
        if (multi == nullptr) throw Error("push: libcurl could not make a multi handle");
        curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS,
                          static_cast<long>(options.max_idle_connections));
        thread = std::thread([this] { run(); });
    }

    ~Impl() {
        {
            std::lock_guard lock(mutex);
            stopping = true;
        }
        curl_multi_wakeup(multi);
        thread.join();
        curl_multi_cleanup(multi);
    }

    void submit(HttpRequest request, Done done) {
        auto t = std::make_unique<Transfer>();
        t->request = std::move(request);
        t->done = std::move(done);
        t->network = &options.network;
        in_flight.fetch_add(1);
        {
            std::lock_guard lock(mutex);
            queued.push_back(std::move(t));
        }
        curl_multi_wakeup(multi);
    }

    void run() {
        for (;;) {
            std::vector<std::unique_ptr<Transfer>> starting;
            {
                std::lock_guard lock(mutex);
                if (stopping) break;
                starting.swap(queued);
            }
            for (auto& t : starting) start(std::move(t));
            int running_handles = 0;
            curl_multi_perform(multi, &running_handles);
            int left = 0;
            while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
                if (m->msg == CURLMSG_DONE) finish(m->easy_handle, m->data.result);
            }
            curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
        }
        // Abandoned: their messages come back when their leases end.
        for (auto& [easy, t] : running) curl_multi_remove_handle(multi, easy);
        running.clear();
    }

    void start(std::unique_ptr<Transfer> t) {
        try {
            configure(*t);
        } catch (const Error& e) {
            t->answer.failure = TransportFailure::kConnectionReset;
            t->answer.failure_detail = e.what();
            complete(std::move(t));
            return;
        }
        CURL* easy = t->easy.get();
        curl_multi_add_handle(multi, easy);
        running.emplace(easy, std::move(t));
    }

    void configure(Transfer& t) {
        if (!idle.empty()) {
            t.easy = std::move(idle.back());
            idle.pop_back();
            curl_easy_reset(t.easy.get());
        } else {
            t.easy.reset(curl_easy_init());
            if (!t.easy) throw Error("push: libcurl could not make a handle");
        }
        CURL* easy = t.easy.get();
        const HttpRequest& r = t.request;
        set(easy, CURLOPT_URL, r.url.c_str());
        set(easy, CURLOPT_PROTOCOLS_STR, "http,https");
        set(easy, CURLOPT_FOLLOWLOCATION, 0L);
        // The environment's proxies are not the target's: a push goes where its URL says.
        set(easy, CURLOPT_PROXY, "");
        set(easy, CURLOPT_NOPROXY, "*");
        set(easy, CURLOPT_NOSIGNAL, 1L);
        set(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(r.timeout.count()));
        set(easy, CURLOPT_USERAGENT, (std::string("delayq/") + version()).c_str());
        if (!options.ca_file.empty()) set(easy, CURLOPT_CAINFO, options.ca_file.c_str());
        set(easy, CURLOPT_OPENSOCKETFUNCTION, &open_socket);
        set(easy, CURLOPT_OPENSOCKETDATA, static_cast<void*>(&t));
        set(easy, CURLOPT_WRITEFUNCTION, &on_body);
        set(easy, CURLOPT_WRITEDATA, static_cast<void*>(&t));
        set(easy, CURLOPT_PRIVATE, static_cast<void*>(&t));
        if (r.method == PushMethod::kPost) {
            set(easy, CURLOPT_POST, 1L);
        } else {
            set(easy, CURLOPT_CUSTOMREQUEST, std::string(to_string(r.method)).c_str());
        }
        set(easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
        set(easy, CURLOPT_POSTFIELDS, r.body.data());
        curl_slist* list = nullptr;
        for (const std::string& h : r.headers) {
            curl_slist* next = curl_slist_append(list, h.c_str());
            if (next == nullptr) {
                curl_slist_free_all(list);
                throw Error("push: out of memory for the headers");
            }
            list = next;
        }
        // No "Expect: 100-continue" round trip before a large body.
        list = curl_slist_append(list, "Expect:");
        t.headers.reset(list);
        set(easy, CURLOPT_HTTPHEADER, list);
    }

    void finish(CURL* easy, CURLcode code) {
        curl_multi_remove_handle(multi, easy);
        auto it = running.find(easy);
        if (it == running.end()) return;
        std::unique_ptr<Transfer> t = std::move(it->second);
        running.erase(it);
        HttpAnswer& a = t->answer;
        a.timeout = t->request.timeout;
        if (code == CURLE_OK) {
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            a.status = static_cast<int>(status);
            curl_header* h = nullptr;
            if (curl_easy_header(easy, "Retry-After", 0, CURLH_HEADER, -1, &h) == CURLHE_OK) {
                a.retry_after = h->value;
            }
        } else if (code == CURLE_COULDNT_CONNECT && !t->opened && !t->refusal.empty()) {
            a.failure = TransportFailure::kAddressRefused;
            a.failure_detail = t->refusal;
        } else {
            a.failure = failure_of(code);
            a.failure_detail = curl_easy_strerror(code);
            a.body.clear();
        }
        // The handle keeps nothing of this request once reset: reused for the next one.
        if (idle.size() < options.max_idle_connections) idle.push_back(std::move(t->easy));
        complete(std::move(t));
    }

    void complete(std::unique_ptr<Transfer> t) {
        in_flight.fetch_sub(1);
        try {
            t->done(std::move(t->answer));
        } catch (const std::exception& e) {
            spdlog::error("push: a request's callback failed: {}", e.what());
        }
    }

    HttpClientOptions options;
    CURLM* multi = nullptr;
    std::mutex mutex;  // guards queued, stopping
    std::vector<std::unique_ptr<Transfer>> queued;
    bool stopping = false;
    std::atomic<std::size_t> in_flight{0};
    // The thread's only.
    std::unordered_map<CURL*, std::unique_ptr<Transfer>> running;
    std::vector<Easy> idle;
    std::thread thread;
};

HttpClient::HttpClient(HttpClientOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

HttpClient::~HttpClient() = default;

void HttpClient::submit(HttpRequest request, Done done) {
    impl_->submit(std::move(request), std::move(done));
}

std::size_t HttpClient::in_flight() const { return impl_->in_flight.load(); }

}  // namespace delayq::push
