#!/usr/bin/env python3
"""The editor workloads of bench/editors.sh, side by side: ForgeLM and llama-server on the same files.

  editors.py rerank --server forge=URL --server peer=URL --model ID
      the same query and documents to both /v1/rerank: every document's score, the largest
      difference (METRIC rerank.max_abs_diff), and whether the orders agree
  editors.py infill --server forge=URL --server peer=URL --model ID
      the same /infill bodies (with and without input_extra, greedy): the prompt each server laid
      out (its text and token count) and the greedy completion, which must be equal
  editors.py typing --server forge=URL --server peer=URL --model ID [--rounds R]
      a typing session replayed: one streamed /infill per keystroke, as llama.vscode sends them;
      most are cancelled once their first token arrives (the next key comes), every fifth runs to
      its end (the user paused). Time to first token per request, p50/p95 per server, and the
      ratio forge/peer (RATIO typing.ttft_p95). The servers take turns session by session.

Python's standard library only; loopback only. Prints METRIC/RATIO lines like bench/run.sh.
"""
import argparse
import http.client
import json
import sys
import time
import urllib.parse

# The file being edited: the user types FUNCTION at CURSOR, one character per keystroke.
FILE_BEFORE = '''import os
import sys
from dataclasses import dataclass


@dataclass
class Point:
    x: float
    y: float

    def norm(self) -> float:
        return (self.x * self.x + self.y * self.y) ** 0.5


def read_points(path: str) -> list[Point]:
    points = []
    with open(path) as f:
        for line in f:
            x, y = line.split(",")
            points.append(Point(float(x), float(y)))
    return points


'''
FILE_AFTER = '''


def main() -> None:
    points = read_points(sys.argv[1])
    print(farthest(points))


if __name__ == "__main__":
    main()
'''
FUNCTIONS = [
    '''def farthest(points: list[Point]) -> Point:
    best = points[0]
    for p in points[1:]:
        if p.norm() > best.norm():
            best = p
    return best''',
    '''def centroid(points: list[Point]) -> Point:
    n = len(points)
    sx = sum(p.x for p in points)
    sy = sum(p.y for p in points)
    return Point(sx / n, sy / n)''',
    '''def closest(points: list[Point], q: Point) -> Point:
    def d(p):
        return (p.x - q.x) ** 2 + (p.y - q.y) ** 2
    return min(points, key=d)''',
]
EXTRA = [
    {"filename": "geometry/shapes.py", "text": "class Circle:\n    def __init__(self, r):\n        self.r = r\n"},
    {"filename": "geometry/util.py", "text": "def clamp(v, lo, hi):\n    return max(lo, min(hi, v))\n"},
]


def connect(url):
    u = urllib.parse.urlparse(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=600)


def post(url, path, body):
    c = connect(url)
    try:
        c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = c.getresponse()
        data = r.read()
        return r.status, json.loads(data) if data else None
    finally:
        c.close()


def metric(name, value):
    print(f"METRIC {name} {value}", flush=True)


def servers(args):
    out = []
    for s in args.server:
        name, _, url = s.partition("=")
        out.append((name, url.rstrip("/")))
    return out


def rerank(args):
    (a, ua), (b, ub) = servers(args)
    docs = [
        "The weather today is sunny with a light breeze.",
        "def add(a, b): return a + b",
        "Paris is the capital of France.",
        "Rain is expected tomorrow in the afternoon.",
        "A reranker scores how relevant a document is to a query.",
        "",
        "weather weather weather",
        "Les prévisions météo annoncent du soleil.",
    ]
    body = {"model": args.model, "query": "what is the weather like?", "documents": docs, "top_n": len(docs)}
    scores = {}
    for name, url in ((a, ua), (b, ub)):
        status, r = post(url, "/v1/rerank", body)
        if status != 200:
            sys.exit(f"{name} /v1/rerank: {status} {r}")
        scores[name] = {x["index"]: x["relevance_score"] for x in r["results"]}
        order = [x["index"] for x in r["results"]]
        print(f"# {name}: order {order} tokens {r['usage']['prompt_tokens']}", flush=True)
    worst = 0.0
    for i in range(len(docs)):
        d = abs(scores[a][i] - scores[b][i])
        worst = max(worst, d)
        print(f"# document {i}: {a} {scores[a][i]:.7f} {b} {scores[b][i]:.7f} diff {d:.2e}", flush=True)
    metric("rerank.max_abs_diff", f"{worst:.3e}")
    if worst > args.tolerance:
        sys.exit(f"scores differ by {worst} > {args.tolerance}")


def infill(args):
    (a, ua), (b, ub) = servers(args)
    bodies = []
    for i, fn in enumerate(FUNCTIONS):
        cut = len(fn) // 2
        bodies.append({
            "input_prefix": FILE_BEFORE + fn[:cut],
            "input_suffix": fn[cut:] + FILE_AFTER,
            "input_extra": EXTRA if i != 1 else [],
            "prompt": "" if i != 2 else "  ",
            "n_predict": 24,
            "temperature": 0,
            "top_k": 1,
            "samplers": ["top_k"],
            "cache_prompt": True,
        })
    same = 0
    for i, body in enumerate(bodies):
        got = {}
        for name, url in ((a, ua), (b, ub)):
            body["model"] = args.model
            status, r = post(url, "/infill", body)
            if status != 200:
                sys.exit(f"{name} /infill: {status} {r}")
            got[name] = r
        ra, rb = got[a], got[b]
        checks = {
            "prompt_tokens": (ra["tokens_evaluated"], rb["tokens_evaluated"]),
            "prompt_text": (ra["prompt"], rb["prompt"]),
            "content": (ra["content"], rb["content"]),
            "tokens_predicted": (ra["tokens_predicted"], rb["tokens_predicted"]),
        }
        for what, (x, y) in checks.items():
            ok = x == y
            shown = (x, y) if what != "prompt_text" else (len(x), len(y))
            print(f"# body {i} {what}: {'same' if ok else 'DIFFERENT'} {shown}", flush=True)
            if not ok:
                print(f"#   {a}: {x!r}\n#   {b}: {y!r}", flush=True)
            same += ok
    metric("infill.checks_equal", f"{same}/{4 * len(bodies)}")
    if same != 4 * len(bodies):
        sys.exit("the servers disagree")


def keystroke(url, body, cancel):
    """One keystroke's request: seconds to the first token; reads to the end unless cancel."""
    c = connect(url)
    t0 = time.perf_counter()
    c.request("POST", "/infill", json.dumps(body), {"Content-Type": "application/json"})
    r = c.getresponse()
    if r.status != 200:
        sys.exit(f"/infill: {r.status} {r.read()[:300]!r}")
    ttft = None
    while True:
        line = r.readline()
        if not line:
            break
        if not line.startswith(b"data: "):
            continue
        event = json.loads(line[6:])
        if ttft is None and (event.get("content") or event.get("stop")):
            ttft = time.perf_counter() - t0
            if cancel:
                break
        if event.get("stop"):
            break
    # Closing the connection mid-stream is how an editor cancels: the server notices at its next write.
    c.close()
    return ttft


def typing(args):
    named = servers(args)
    ttfts = {name: [] for name, _ in named}
    for rnd in range(args.rounds):
        fn = FUNCTIONS[rnd % len(FUNCTIONS)]
        # Each round types another function, so no server starts a round with its text cached;
        # the servers take turns, the order swapped every round.
        order = named if rnd % 2 == 0 else list(reversed(named))
        for name, url in order:
            start = time.perf_counter()
            for k in range(1, len(fn) + 1, args.step):
                body = {
                    "model": args.model,
                    "input_prefix": FILE_BEFORE + fn[:k],
                    "input_suffix": FILE_AFTER,
                    "input_extra": EXTRA,
                    "prompt": "",
                    "n_predict": args.n_predict,
                    "t_max_predict_ms": 500,
                    # Greedy, so both servers generate the same tokens (the same work) after the first.
                    "top_k": 1,
                    "samplers": ["top_k"],
                    "stream": True,
                    "cache_prompt": True,
                }
                cancel = (k // args.step) % 5 != 4 and k + args.step <= len(fn)
                t = keystroke(url, body, cancel)
                if t is not None:
                    ttfts[name].append(t)
            print(f"# round {rnd} {name}: {time.perf_counter() - start:.1f} s", flush=True)
    p95 = {}
    for name, xs in ttfts.items():
        xs = sorted(xs)
        p50 = xs[len(xs) // 2]
        p95[name] = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
        metric(f"typing.{name}.requests", len(xs))
        metric(f"typing.{name}.ttft_p50_ms", f"{p50 * 1000:.1f}")
        metric(f"typing.{name}.ttft_p95_ms", f"{p95[name] * 1000:.1f}")
    if len(named) == 2:
        (a, _), (b, _) = named
        print(f"RATIO typing.ttft_p95 {p95[a] / p95[b]:.3f}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workload", choices=["rerank", "infill", "typing"])
    p.add_argument("--server", action="append", required=True, help="NAME=URL, twice: ForgeLM first, then the peer")
    p.add_argument("--model", default="")
    p.add_argument("--tolerance", type=float, default=1e-4, help="rerank: the largest score difference allowed")
    p.add_argument("--rounds", type=int, default=2, help="typing: sessions per server")
    p.add_argument("--step", type=int, default=1, help="typing: characters per keystroke")
    p.add_argument("--n-predict", type=int, default=16, help="typing: n_predict of each request")
    args = p.parse_args()
    {"rerank": rerank, "infill": infill, "typing": typing}[args.workload](args)


if __name__ == "__main__":
    main()
