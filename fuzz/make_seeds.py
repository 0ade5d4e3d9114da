#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (corpus/<target>/, one file an input, named by its
SHA-1): a few well-formed inputs of each parser, from which libFuzzer mutates. Run it again
after changing a seed below; files it no longer makes must be removed by hand."""
import hashlib
import os

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
def put(name, items):
    d = os.path.join(root, name); os.makedirs(d, exist_ok=True)
    for data in items:
        if isinstance(data, str): data = data.encode()
        with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), 'wb') as f: f.write(data)

def r(v):
    if v is None: return b'$-1\r\n'
    if isinstance(v, bool): return b':%d\r\n' % int(v)
    if isinstance(v, int): return b':%d\r\n' % v
    if isinstance(v, str): v = v.encode()
    if isinstance(v, bytes): return b'$%d\r\n%s\r\n' % (len(v), v)
    if isinstance(v, list): return b'*%d\r\n' % len(v) + b''.join(r(x) for x in v)
    raise TypeError(v)

lease = '0000000000002aorder-1'
now_ms = 1700000000000
generic = [r([1, 2, 3]), r([now_ms, -1, []]), r(['a', 1, ['b', 2]]), b'-ERR delayq: bad script argument\r\n', r(3), r('ok'), b'+OK\r\n', r(None)]
fetch = r([now_ms * 1000 + 250, now_ms + 5000, [1, 3, 2, now_ms, lease, 'p1', '0000000000002bx', 'p2'], ['dead-1', 'expired', 3]])
stats = r([now_ms, 1, 2, 3, 4, now_ms - 10, now_ms + 10, ['sent', 5, 'acked', 4], ['sum_ms', 12, '10', 1, '+Inf', 0]])
send = r([now_ms, now_ms + 1000, -1, now_ms - 5])
poll = r([now_ms, now_ms + 60000, 'nightly', '0 3 * * *', 0, 'UTC', '', 0, 0, -1, -1, 0, 'allow', 'one', now_ms, now_ms, now_ms + 86400000])
seeds = []
for which in range(32):
    for g in generic: seeds.append(bytes([which]) + g)
seeds += [bytes([0]) + fetch, bytes([24]) + stats, bytes([11]) + send, bytes([7]) + poll,
          bytes([1]) + r([1, 0, 1]), bytes([2]) + r([now_ms + 30000, 0]), bytes([4]) + r(['retrying', now_ms + 1000]),
          bytes([28]) + b'-MOVED 3999 127.0.0.1:6381\r\n', bytes([28]) + b'-ASK 3999 [::1]:6381\r\n',
          bytes([28]) + b'-NOPERM this user has no permissions\r\n', bytes([28]) + b'-READONLY You can\'t write\r\n',
          bytes([29]) + r(['127.0.0.1', '6379']), bytes([29]) + r(['master', 3129659, [['127.0.0.1', '9001', '3129242']]]),
          bytes([29]) + r('mymaster 127.0.0.1 6379 127.0.0.1 6380'),
          bytes([29]) + r('# Replication\r\nrole:master\r\nconnected_slaves:0\r\n'),
          bytes([30]) + r([['slots', [0, 16383], 'nodes', [['id', 'abc', 'port', 30001, 'ip', '127.0.0.1', 'endpoint', '127.0.0.1', 'hostname', '', 'role', 'master', 'replication-offset', 72156, 'health', 'online']]]]),
          bytes([31]) + r([[0, 5460, ['127.0.0.1', 30001, 'id1'], ['127.0.0.1', 30004, 'id4']], [5461, 16383, ['', 30002, 'id2']]])]
put('resp', seeds)

put('lease', [lease, lease + '.AAAAAAAAAAAAAAAAAAAAAA', '0000000000002a', 'c1:1700000000000:0000000000002aorder-1', 'c1:+inf:x', '0', '1700000000000:nightly', ''])
put('url', ['redis://localhost', 'redis://:secret@127.0.0.1:6380/2', 'rediss://user:p%40ss@[::1]:6390/0',
            'redis://a:1,b:2,[::1]:3/1', 'unix:///run/redis.sock?db=3', 'redis+sentinel://s1:26379,s2/mymaster/1',
            'rediss+sentinel://u:p@[fe80::1]/m', 'orders', 'billing-*', 'a\\*b', '*'])
put('time', ['1500', '0', '250ms', '30s', '1h30m', '7d12h', '1m0s500ms', '2932896d23h59m59s999ms',
             '2030-01-02T03:04:05Z', '2030-01-02T05:04:05.250+02:00', '2030-01-02 03:04:05.123456z', '1893553445000',
             '1970-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2016-12-31T23:59:60Z'])
start = bytes([0x65, 0x53, 0xf1, 0x00])
crons = ['0 3 * * *', '*/15 * * * *', '0 0 29 2 *', '30 2 * * MON-FRI', '0 0 1 JAN,JUL ?', '@daily', '@hourly',
         '0 */5 8-18 * * 1-5', '59 23 31 12 *', '0 0 1-7 * 1', '5,10,15 0 L * *']
specs = ['{"cron": "0 3 * * *", "tz": "Europe/Berlin", "payload": "x"}', '{"every": "1h30m", "payload": "y", "start": "2030-01-01T00:00:00Z"}',
         '{"cron": "30 2 * * *", "tz": "America/New_York", "end": "2031-01-01T00:00:00Z", "max_runs": 3, "overlap": "skip", "catch_up": "all"}',
         '{"cron": "@weekly", "payload_base64": "AAEC", "max_attempts": 2, "expire_after": "10m"}']
put('cron', [bytes([0]) + start + c.encode() for c in crons] + [bytes([1]) + start + s.encode() for s in specs])
put('push', [b'\x00{"url": "https://hooks.example.com/x", "method": "PUT", "headers": {"Authorization": "Bearer t"}, "secrets": ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"], "request_timeout": "10s", "max_in_flight": 4, "rate": 10}',
             b'\x00{"url": "http://10.0.0.1:8080/hook"}',
             b'\x01127.0.0.1\n10.0.0.0/8', b'\x03169.254.169.254', b'\x01::ffff:10.1.2.3\nfd00::/8\n::1', b'\x01fe80::1%eth0',
             b'\x02120', b'\x02Sun, 06 Nov 1994 08:49:37 GMT', b'\x02Sunday, 06-Nov-94 08:49:37 GMT', b'\x02Sun Nov  6 08:49:37 1994',
             b'\x03\x01\x90{"error": "busy"}', b'\x03\x00\xc8', b'\x04whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'])
put('json_lines', ['{"payload": "text", "delay": "30s", "id": "order-42"}\n{"payload_base64": "AAEC/w==", "at": "2030-01-02T03:04:05Z", "max_attempts": 3, "expire_after": "1h"}\n',
                   '\n\n{"payload": "x", "delay": 1500}\n', '{"payload": {"a": [1, 2]}, "at": 1893553445000}\n'])
h = hashlib.sha256(b'fuzz-admin-token').hexdigest()
put('token_file', ['# tokens\nadmin %s admin *\napp %s send,consume orders,billing-*\n' % (h, h[::-1]), 'fuzz-admin-token ci %s read,schedule a\\*b\n' % h, ''])

def req(method, target, body=None, token=None, extra=''):
    s = '%s %s HTTP/1.1\r\nHost: localhost:8080\r\n' % (method, target)
    if token: s += 'Authorization: Bearer %s\r\n' % token
    s += extra
    if body is not None:
        s += 'Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' % (len(body.encode()), body)
    else:
        s += '\r\n'
    return s
reqs = [req('GET', '/healthz'), req('GET', '/v1/queues'), req('POST', '/v1/queues/orders/messages', '{"payload": "hi", "delay": "30s", "id": "o-1", "durability": {"replicas": 1, "timeout": "1s"}}'),
        req('POST', '/v1/queues/orders/messages/batch', '{"messages": [{"payload": "a"}, {"payload_base64": "AAE=", "at": "2030-01-01T00:00:00Z"}]}'),
        req('GET', '/v1/queues/orders/messages/o-1'), req('DELETE', '/v1/queues/orders/messages/o-1'),
        req('POST', '/v1/queues/orders/messages/o-1/reschedule', '{"delay": "5m"}'),
        req('POST', '/v1/queues/orders/leases', '{"max": 10, "visibility": "30s", "wait": "0s"}'),
        req('POST', '/v1/queues/orders/ack', '{"leases": ["%s.AAAAAAAAAAAAAAAAAAAAAA"]}' % lease),
        req('POST', '/v1/queues/orders/extend', '{"leases": ["%s"], "visibility": "1m"}' % lease),
        req('POST', '/v1/queues/orders/nack', '{"lease": "%s", "delay": "10s", "error": "boom"}' % lease),
        req('POST', '/v1/queues/orders/reject', '{"lease": "%s", "error": "bad"}' % lease),
        req('GET', '/v1/queues/orders/messages?state=dead&limit=10&cursor=c1%3A1%3Ax'),
        req('GET', '/v1/queues/orders/timeline?bucket=1m&buckets=60'),
        req('POST', '/v1/queues/orders/dead/requeue', '{"ids": ["a", "b"]}'), req('POST', '/v1/queues/orders/dead/purge', '{"all": true}'),
        req('PATCH', '/v1/queues/orders', '{"max_attempts": 5, "backoff": {"initial": "1s", "max": "1h", "multiplier": 2, "jitter": 0.1}, "paused": true}'),
        req('DELETE', '/v1/queues/orders?force=true'),
        req('GET', '/v1/queues/orders/schedules?limit=5'),
        req('POST', '/v1/queues/orders/schedules', '{"name": "nightly", "cron": "0 3 * * *", "tz": "Europe/Berlin", "payload": "x"}'),
        req('PUT', '/v1/queues/orders/schedules/nightly', '{"every": "1h", "payload": "x"}'),
        req('POST', '/v1/queues/orders/schedules/nightly/trigger', '{}'),
        req('GET', '/v1/queues/orders/schedules/nightly/next?count=5&from=2030-01-01T00:00:00Z'),
        req('PUT', '/v1/queues/orders/push-target', '{"url": "https://hooks.example.com/x", "headers": {"X-Key": "v"}}'),
        req('GET', '/v1/token'), req('GET', '/metrics'), req('GET', '/ui/app.js'), req('GET', '/v1/openapi.yaml'),
        'POST /v1/queues/orders/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n11\r\n{"payload": "hi"}\r\n0\r\n\r\n']
seeds = [b'\x00' + x.encode() for x in reqs]
seeds += [b'\x01' + req('POST', '/v1/queues/orders/messages', '{"payload": "hi"}', 'fuzz-app-token', 'Origin: https://dash.example.com\r\n').encode(),
          b'\x01' + req('POST', '/v1/queues/billing-eu/ack', '{"leases": ["%s"]}' % lease, 'fuzz-app-token').encode(),
          b'\x01' + req('PATCH', '/v1/queues/orders', '{"paused": false}', 'fuzz-admin-token').encode(),
          b'\x01' + req('GET', '/v1/queues', None, 'fuzz-admin-token').encode()]
put('serve', seeds)
