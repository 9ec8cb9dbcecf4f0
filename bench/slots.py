#!/usr/bin/env python3
"""What the default slot count costs, measured on ForgeLM's image (bench/SLOTS.md).

Three servers, -np 1, 2 and 4 (2048 cells per slot, split KV streams as ForgeLM runs them), one
thread each so that CPU time is the cost of the work and not of spinning: on a shared machine
wall time is noise, CPU seconds per token are not. Requests are interleaved across the servers,
round by round. Per server:
  alone   one chat (32 tokens, short prompt): CPU ms per generated token, an idle slot's cost
  deep    one chat after a ~520-token prompt: CPU ms per token at depth
  beside  a chat (64 tokens, ~520-token prompt) with an autocomplete request (/v1/completions,
          ~200-token prompt, 8 tokens) sent when its first token arrives: the autocomplete's
          latency (wall: with one slot it waits for the whole chat) and the CPU of both together
With a 4th argument, kvpool, the servers are instead 2 slots over 4096 cells with a KV stream per
slot and with one pool for both (-kvu), ForgeLM and llama-server (PEER, default the peer build's
llama-server), and one more request is measured:
  long    an agent prompt of ~2300 tokens (more than a slot's 2048 share), 16 tokens, with an
          autocomplete sent when its first token arrives: served only by a pool (a stream per slot
          refuses it: 400), its CPU and the autocomplete's latency
Usage: slots.py IMAGE MODEL [ROUNDS [kvpool]]
"""
import http.client, json, subprocess, sys, threading, time, os

IMAGE = sys.argv[1]; MODEL = sys.argv[2]; ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
KVPOOL = len(sys.argv) > 4 and sys.argv[4] == "kvpool"
PEER = os.environ.get("PEER", os.path.expanduser("~/.cache/forge/peer/build/bin/llama-server"))
BASE = 18300
TICK = os.sysconf("SC_CLK_TCK")
FORGE = [IMAGE + "/bin/forge", "serve", "-m", MODEL, "--alias", "m", "-t", "1"]
if KVPOOL:
    # The same layouts on both servers: llama-server's -np 2 alone is a stream per slot too.
    PEER_CMD = [PEER, "-m", MODEL, "--alias", "m", "-t", "1", "--no-warmup"]
    CONFIGS = {"forge.split": FORGE + ["-c", "4096", "-np", "2", "--no-kv-unified"],
               "forge.kvu": FORGE + ["-c", "4096", "-np", "2", "-kvu"],
               "peer.split": PEER_CMD + ["-c", "4096", "-np", "2", "--no-kv-unified"],
               "peer.kvu": PEER_CMD + ["-c", "4096", "-np", "2", "-kvu"]}
else:
    CONFIGS = {f"np{np}": FORGE + ["-c", str(2048 * np), "-np", str(np)] for np in [1, 2, 4]}
NPS = list(CONFIGS)
procs = {}
for i, np in enumerate(NPS):
    log = open(f"/tmp/slots-{np}.log", "w")
    procs[np] = (BASE + i, subprocess.Popen(CONFIGS[np] + ["--port", str(BASE + i)], stdout=log, stderr=log))

def cpu_ms(pid):
    # utime + stime of the server's process (every thread), in ms; the launcher execs java, so the pid is java's
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / TICK

def post(port, path, body):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    return c, c.getresponse()

def ready(port):
    for _ in range(900):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/health")
            if c.getresponse().status == 200: return
        except Exception: pass
        time.sleep(0.2)
    raise SystemExit("server did not start")

for np, (port, p) in procs.items(): ready(port)

SHORT = "Write a Java record for a 2D point."
DEEP = "Here is some code to review:\n" + "public int add(int a, int b) { return a + b; }\n" * 30
AUTOCOMPLETE = "def fibonacci(n):\n    " + "# compute the nth number\n    " * 20

def chat(port, user, max_tokens, on_first=None):
    c, r = post(port, "/v1/chat/completions", {"model": "m", "max_tokens": max_tokens, "temperature": 0, "ignore_eos": True,
                                                "stream": True, "messages": [{"role": "user", "content": user}]})
    timings = None; first = True
    if r.status != 200:  # refused (a stream per slot refuses a prompt beyond its share): None
        r.read(); c.close()
        return None
    for raw in r:
        line = raw.decode().strip()
        if not line.startswith("data: {"): continue
        d = json.loads(line[6:])
        if first and d["choices"] and d["choices"][0]["delta"].get("content"):
            first = False
            if on_first: on_first()
        if "timings" in d: timings = d["timings"]
    c.close()
    return timings

LONG = "Here is the repository to work on:\n" + "".join(f"def f{i}(x):\n    return x * {i} + {i % 7}\n" for i in range(140))

def complete(port, out):
    t0 = time.time()
    c, r = post(port, "/v1/completions", {"model": "m", "prompt": AUTOCOMPLETE, "max_tokens": 8, "temperature": 0, "ignore_eos": True})
    json.loads(r.read()); c.close()
    out["ms"] = (time.time() - t0) * 1000

def rss(pid):
    return next(int(l.split()[1]) for l in open(f"/proc/{pid}/status") if l.startswith("VmRSS:")) // 1024

R = {np: {"alone": [], "deep": [], "beside_cpu": [], "ac_ms": [], "long_cpu": [], "long_ac_ms": []} for np in NPS}
for np in NPS:
    chat(procs[np][0], SHORT, 8)  # warm-up: page cache, JIT
for rnd in range(ROUNDS):
    for np in NPS[rnd % 3:] + NPS[:rnd % 3]:
        port, p = procs[np]
        c0 = cpu_ms(p.pid); t = chat(port, f"{SHORT} ({rnd})", 32)
        R[np]["alone"].append((cpu_ms(p.pid) - c0) / t["predicted_n"])
        # depth: the prompt's prefill is counted apart (timings), so take decode CPU as total minus a prefill estimate? no:
        # compare like with like instead: the same deep request on every server, CPU for the whole request
        c0 = cpu_ms(p.pid); t = chat(port, f"{DEEP}({rnd})", 32)
        R[np]["deep"].append(cpu_ms(p.pid) - c0)
        ac = {}; th = []
        fire = lambda: (th.append(threading.Thread(target=complete, args=(port, ac))), th[-1].start())
        c0 = cpu_ms(p.pid); t = chat(port, f"{DEEP}[{rnd}]", 64, on_first=fire)
        for x in th: x.join()
        R[np]["beside_cpu"].append(cpu_ms(p.pid) - c0); R[np]["ac_ms"].append(ac["ms"])
        if KVPOOL:
            ac = {}; th = []
            c0 = cpu_ms(p.pid); t = chat(port, f"{LONG}<{rnd}>", 16, fire)
            for x in th: x.join()
            if t is not None:
                R[np]["long_cpu"].append(cpu_ms(p.pid) - c0); R[np]["long_ac_ms"].append(ac["ms"])
    print(f"round {rnd} done", file=sys.stderr, flush=True)
med = lambda xs: sorted(xs)[len(xs) // 2] if xs else float("nan")
for np in NPS:
    r = R[np]
    print(f"METRIC {np}.cpu_ms_per_token_alone={med(r['alone']):.1f} {np}.cpu_ms_deep_request={med(r['deep']):.0f}"
          f" {np}.cpu_ms_chat_and_autocomplete={med(r['beside_cpu']):.0f} {np}.autocomplete_beside_chat_ms={med(r['ac_ms']):.0f}"
          + (f" {np}.cpu_ms_long_and_autocomplete={med(r['long_cpu']):.0f} {np}.autocomplete_beside_long_ms={med(r['long_ac_ms']):.0f}"
             f" {np}.long_served={len(r['long_cpu'])}/{ROUNDS}" if KVPOOL else "")
          + f" {np}.rss_mb={rss(procs[np][1].pid)}")
    print(f"RAW {np} {json.dumps(r)}")
print(f"LOAD {open('/proc/loadavg').read().strip()}")
for port, p in procs.values(): p.terminate()
for port, p in procs.values(): p.wait()
