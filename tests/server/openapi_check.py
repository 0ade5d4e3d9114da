#!/usr/bin/env python3
"""Parses the server's OpenAPI document and checks its structure; prints its operations.

usage: openapi_check.py FILE
       openapi_check.py --limits FILE

On success prints one line per operation, "METHOD PATH SCOPE" (SCOPE "-" when the operation
needs no token), and exits 0; otherwise prints what is wrong and exits 1. The caller compares
the operations with the routes the server has. With --limits it prints instead "NAME VALUE"
lines of the bounds the schemas give (LIMITS below), which the caller compares with the
server's constants.
"""
import re
import sys

import yaml

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
PATH_ITEM_KEYS = METHODS | {"parameters", "summary", "description", "servers", "$ref"}
SCOPES = {"send", "consume", "read", "schedule", "admin"}
CODES = {
    "bad_request", "unauthorized", "forbidden", "not_found", "method_not_allowed", "conflict",
    "payload_too_large", "unsupported_media_type", "rate_limited", "too_many_connections",
    "too_many_polls", "server_busy",
    "redis_unavailable", "redis_out_of_memory", "not_replicated", "internal_error",
}
# Every operation can answer these, whatever its route: a malformed request or a Host or
# Origin refused (before routing), and a head over 16 KiB.
ANY_ROUTE = {"400", "403", "413"}
# name: where the bound is, from the document's root; a list's items are walked by "*".
LIMITS = {
    "lease_max": "paths|/v1/queues/{queue}/leases|post|requestBody|content|application/json"
                 "|schema|properties|max|maximum",
    "lease_wait_ms": "components|schemas|LeaseWait|oneOf|1|maximum",
    "leases_per_request": "components|schemas|LeaseList|maxItems",
    "batch_messages": "paths|/v1/queues/{queue}/messages/batch|post|requestBody|content"
                      "|application/json|schema|properties|messages|maxItems",
    "dead_ids": "components|requestBodies|DeadSelector|content|application/json|schema"
                "|properties|ids|maxItems",
    "duration_ms": "components|schemas|Duration|oneOf|1|maximum",
    "time_ms": "components|schemas|Time|oneOf|1|maximum",
    "message_max_attempts": "components|schemas|MessageFields|properties|max_attempts|maximum",
    "wait_replicas": "components|schemas|WaitReplicas|maximum",
    "wait_timeout_ms": "components|schemas|WaitTimeout|oneOf|1|maximum",
    "list_limit": "paths|/v1/queues/{queue}/messages|get|parameters|1|schema|maximum",
    "settings_max_attempts": "paths|/v1/queues/{queue}|patch|requestBody|content"
                             "|application/json|schema|properties|max_attempts|maximum",
    "settings_dead_max_count": "paths|/v1/queues/{queue}|patch|requestBody|content"
                               "|application/json|schema|properties|dead_max_count|maximum",
    "schedule_list_limit": "paths|/v1/queues/{queue}/schedules|get|parameters|0|schema|maximum",
    "schedule_next_count": "paths|/v1/queues/{queue}/schedules/{name}/next|get|parameters|0"
                           "|schema|maximum",
    "schedule_max_attempts": "components|schemas|ScheduleFields|properties|max_attempts|maximum",
    "schedule_max_runs": "components|schemas|ScheduleFields|properties|max_runs|maximum",
}
errors = []


def fail(what):
    errors.append(what)


def resolve(doc, ref, where):
    if not isinstance(ref, str) or not ref.startswith("#/"):
        fail(f"{where}: $ref {ref!r} is not a local reference")
        return None
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            fail(f"{where}: $ref {ref} does not resolve")
            return None
        node = node[part]
    return node


def walk_refs(doc, node, where):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                resolve(doc, value, where)
            else:
                walk_refs(doc, value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            walk_refs(doc, value, f"{where}/{i}")


def deref(doc, node, where):
    while isinstance(node, dict) and "$ref" in node:
        node = resolve(doc, node["$ref"], where)
    return node


def scope_of(doc, op, where):
    security = op.get("security", doc.get("security"))
    if not isinstance(security, list):
        fail(f"{where}: no security requirement")
        return None
    if not security:
        return "-"
    if len(security) != 1 or list(security[0]) != ["bearerAuth"]:
        fail(f"{where}: security must be [] or [{{bearerAuth: [SCOPE]}}]")
        return None
    scopes = security[0]["bearerAuth"]
    if scopes == []:
        return "token"  # any token the server accepts, whatever its scopes
    if len(scopes) != 1 or scopes[0] not in SCOPES:
        fail(f"{where}: the scope must be one of {sorted(SCOPES)}, not {scopes}")
        return None
    return scopes[0]


def check_operation(doc, path, method, op, path_params):
    where = f"{method.upper()} {path}"
    declared = set()
    for p in path_params + op.get("parameters", []):
        p = deref(doc, p, where)
        if isinstance(p, dict) and p.get("in") == "path":
            declared.add(p.get("name"))
            if p.get("required") is not True:
                fail(f"{where}: path parameter {p.get('name')} must be required")
    used = set(re.findall(r"{([^}]+)}", path))
    if declared != used:
        fail(f"{where}: path parameters {sorted(declared)} but the path has {sorted(used)}")
    if not op.get("operationId"):
        fail(f"{where}: no operationId")
    responses = op.get("responses")
    if not isinstance(responses, dict) or not responses:
        fail(f"{where}: no responses")
        return None
    missing = ANY_ROUTE - {str(status) for status in responses}
    if missing:
        fail(f"{where}: no {sorted(missing)} response, which any route can answer")
    for status, response in responses.items():
        if not re.fullmatch(r"[1-5]\d\d", str(status)):
            fail(f"{where}: response key {status!r} is not a status code")
        response = deref(doc, response, where)
        if not isinstance(response, dict) or "description" not in response:
            fail(f"{where} {status}: a response needs a description")
            continue
        content = response.get("content", {})
        if str(status)[0] in "45":
            problem = content.get("application/problem+json", {}).get("schema")
            if problem != {"$ref": "#/components/schemas/Problem"}:
                fail(f"{where} {status}: an error is application/problem+json with the Problem schema")
        for media, body in content.items():
            if "schema" not in body:
                fail(f"{where} {status} {media}: no schema")
    if "requestBody" in op:
        body = deref(doc, op["requestBody"], where)
        if not isinstance(body, dict) or "application/json" not in body.get("content", {}):
            fail(f"{where}: a request body is application/json")
    return scope_of(doc, op, where)


def limits(doc):
    for name, where in LIMITS.items():
        node = doc
        for part in where.split("|"):
            node = deref(doc, node, name)
            node = node[int(part)] if isinstance(node, list) else (node or {}).get(part)
        print(f"{name} {node}")
    return 0


def main():
    args = sys.argv[1:]
    with open(args[-1], encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    if args[0] == "--limits":
        return limits(doc)
    if not isinstance(doc, dict):
        print("not a YAML mapping")
        return 1
    if not str(doc.get("openapi", "")).startswith("3.1."):
        fail("openapi must be 3.1.x")
    info = doc.get("info", {})
    if not info.get("title") or not info.get("version"):
        fail("info needs a title and a version")
    scheme = doc.get("components", {}).get("securitySchemes", {}).get("bearerAuth", {})
    if scheme.get("type") != "http" or scheme.get("scheme") != "bearer":
        fail("components.securitySchemes.bearerAuth must be HTTP bearer")
    problem = doc.get("components", {}).get("schemas", {}).get("Problem", {})
    if set(problem.get("required", [])) != {"type", "title", "status", "code", "detail"}:
        fail("the Problem schema must require type, title, status, code and detail")
    codes = set(problem.get("properties", {}).get("code", {}).get("enum", []))
    if codes != CODES:
        fail(f"Problem.code lists {sorted(codes)}, the server's codes are {sorted(CODES)}")
    walk_refs(doc, doc, "#")
    allowed = doc.get("components", {}).get("responses", {}).get("MethodNotAllowed", {})
    if allowed.get("headers", {}).get("Allow", {}).get("required") is not True:
        fail("components.responses.MethodNotAllowed must have a required Allow header")
    if "HEAD" not in info.get("description", ""):
        fail("info.description must say that GET paths answer HEAD")

    operations = []
    ids = set()
    for path, item in doc.get("paths", {}).items():
        if not path.startswith("/"):
            fail(f"path {path!r} does not start with /")
        for key in item:
            if key not in PATH_ITEM_KEYS:
                fail(f"{path}: unknown key {key!r}")
        for method in sorted(METHODS & set(item)):
            op = item[method]
            if op.get("operationId") in ids:
                fail(f"{path}: operationId {op.get('operationId')} taken twice")
            ids.add(op.get("operationId"))
            scope = check_operation(doc, path, method, op, item.get("parameters", []))
            operations.append(f"{method.upper()} {path} {scope}")
    if errors:
        print("\n".join(errors))
        return 1
    print("\n".join(operations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
