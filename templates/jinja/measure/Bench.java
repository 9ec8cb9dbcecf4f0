import forge.api.template.ChatMessage;
import forge.api.template.ChatPrompt;
import forge.api.template.ToolCall;
import forge.api.template.ToolDefinition;
import forge.template.testkit.GoldenCorpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.*;

/**
 * Renders every golden case with both engines, alternating engine order each round; prints the
 * median time per render of each. Usage: java Bench GOLDEN_DIR ROUNDS REPEATS
 */
public class Bench {
    interface Engine { String render(int i); }

    public static void main(String[] a) throws Exception {
        Path golden = Path.of(a[0]);
        int rounds = Integer.parseInt(a[1]);
        int repeats = Integer.parseInt(a[2]);
        System.setProperty("forge.golden.dir", golden.toString());
        GoldenCorpus corpus = GoldenCorpus.locate();
        @SuppressWarnings("unchecked")
        Map<String, Object> index = (Map<String, Object>) forge.template.toolkit.PythonJson.parse(Files.readString(golden.resolve("templates.json")));
        Clock clock = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
        List<forge.template.generic.jinja.JinjaTemplate> jinjava = new ArrayList<>();
        List<forge.template.jinja.Template> mine = new ArrayList<>();
        List<ChatPrompt> prompts = new ArrayList<>();
        List<String[]> tokens = new ArrayList<>();
        long compileJinjava = 0, compileMine = 0;
        for (var e : index.entrySet()) {
            @SuppressWarnings("unchecked") Map<String, Object> spec = (Map<String, Object>) e.getValue();
            String source = Files.readString(golden.resolve("sources").resolve((String) spec.get("file")), StandardCharsets.UTF_8);
            long t0 = System.nanoTime();
            var j = newJinjava(source, (String) spec.get("bos"), (String) spec.get("eos"), clock);
            long t1 = System.nanoTime();
            var m = forge.template.jinja.Template.compile(source).withClock(clock);
            long t2 = System.nanoTime();
            compileJinjava += t1 - t0; compileMine += t2 - t1;
            for (GoldenCorpus.Expected x : corpus.expected(e.getKey())) {
                jinjava.add(j); mine.add(m); prompts.add(x.prompt());
                tokens.add(new String[] {(String) spec.get("bos"), (String) spec.get("eos")});
            }
        }
        int n = prompts.size();
        Engine A = i -> { try { return jinjava.get(i).render(prompts.get(i)); } catch (RuntimeException x) { return "!"; } };
        Engine B = i -> { try { return mine.get(i).render(context(prompts.get(i), tokens.get(i))); } catch (RuntimeException x) { return "!"; } };
        int same = 0;
        for (int i = 0; i < n; i++) if (A.render(i).equals(B.render(i))) same++;
        System.out.printf("cases %d, identical output of both engines %d; first compile of all 17 templates: jinjava %.1f ms, interpreter %.1f ms%n",
                n, same, compileJinjava / 1e6, compileMine / 1e6);
        long[] ta = new long[rounds], tb = new long[rounds];
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            Engine first = r % 2 == 0 ? A : B, second = r % 2 == 0 ? B : A;
            long t0 = System.nanoTime();
            for (int k = 0; k < repeats; k++) for (int i = 0; i < n; i++) sink += first.render(i).length();
            long t1 = System.nanoTime();
            for (int k = 0; k < repeats; k++) for (int i = 0; i < n; i++) sink += second.render(i).length();
            long t2 = System.nanoTime();
            if (r % 2 == 0) { ta[r] = t1 - t0; tb[r] = t2 - t1; } else { tb[r] = t1 - t0; ta[r] = t2 - t1; }
        }
        Arrays.sort(ta); Arrays.sort(tb);
        double perA = ta[rounds / 2] / 1e3 / (repeats * (double) n), perB = tb[rounds / 2] / 1e3 / (repeats * (double) n);
        System.out.printf("median per render over %d rounds x %d x %d cases: jinjava %.1f us, interpreter %.1f us, ratio %.1fx (sink %d)%n",
                rounds, repeats, n, perA, perB, perA / perB, sink % 7);
    }

    static forge.template.generic.jinja.JinjaTemplate newJinjava(String s, String bos, String eos, Clock c) throws Exception {
        var k = forge.template.generic.jinja.JinjaTemplate.class.getDeclaredConstructor(String.class, String.class, String.class, String.class, Clock.class);
        k.setAccessible(true);
        return k.newInstance("generic", s, bos, eos, c);
    }

    /** The context the generic template builds from a prompt (messages as transformers passes them). */
    static Map<String, Object> context(ChatPrompt p, String[] tok) {
        Map<String, Object> ctx = new HashMap<>();
        p.options().forEach((k, v) -> ctx.put(k, tree(v)));
        List<Object> ms = new ArrayList<>();
        for (ChatMessage m : p.messages()) {
            Map<String, Object> v = new LinkedHashMap<>();
            v.put("role", m.role().wire());
            v.put("content", m.content());
            if (!m.name().isEmpty()) v.put("name", m.name());
            if (!m.toolCalls().isEmpty()) {
                List<Object> calls = new ArrayList<>();
                for (ToolCall call : m.toolCalls()) {
                    Map<String, Object> f = new LinkedHashMap<>();
                    f.put("name", call.name()); f.put("arguments", tree(forge.template.toolkit.PythonJson.arguments(call)));
                    Map<String, Object> c = new LinkedHashMap<>();
                    c.put("id", call.id()); c.put("type", "function"); c.put("function", f);
                    calls.add(c);
                }
                v.put("tool_calls", calls);
            }
            if (!m.toolCallId().isEmpty()) v.put("tool_call_id", m.toolCallId());
            if (!m.reasoningContent().isEmpty()) v.put("reasoning_content", m.reasoningContent());
            ms.add(v);
        }
        ctx.put("messages", ms);
        List<Object> tools = new ArrayList<>();
        for (ToolDefinition t : p.tools()) tools.add(tree(t.openAiTree()));
        ctx.put("tools", tools.isEmpty() ? null : tools);
        ctx.put("add_generation_prompt", p.addGenerationPrompt());
        ctx.put("bos_token", tok[0]); ctx.put("eos_token", tok[1]);
        return ctx;
    }

    static Object tree(Object v) {
        if (v == forge.template.toolkit.PythonJson.NULL) return null;
        if (v instanceof Map<?, ?> m) { Map<String, Object> o = new LinkedHashMap<>(); m.forEach((k, x) -> o.put(String.valueOf(k), tree(x))); return o; }
        if (v instanceof List<?> l) { List<Object> o = new ArrayList<>(); l.forEach(x -> o.add(tree(x))); return o; }
        return v;
    }
}
