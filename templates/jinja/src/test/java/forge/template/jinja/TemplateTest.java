package forge.template.jinja;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The engine's API: compiling, rendering plain Java values, errors with their line, and the bounds a hostile template meets. */
class TemplateTest {

    private static String render(String source, Map<String, Object> context) {
        return Template.compile(source).render(context);
    }

    private static JinjaException fails(String source) {
        return assertThrows(JinjaException.class, () -> render(source, Map.of()));
    }

    @Test
    void rendersPlainJavaValues() {
        Map<String, Object> context = new HashMap<>();
        context.put("m", Map.of("n", 3, "f", 1.5f, "s", "x", "b", true, "l", List.of(1L, "a")));
        context.put("none", null);
        assertEquals(
                "3|1.5|x|True|[1, 'a']|None|True|",
                render(
                        "{{ m.n }}|{{ m.f }}|{{ m.s }}|{{ m.b }}|{{ m.l }}|{{ none }}|{{ none is none }}|{{ missing }}",
                        context));
    }

    @Test
    void generationIsTransformersNoOpBlockTag() {
        // LFM2.5 and others mark the assistant's tokens for masks with it; Jinjava called it a syntax error
        assertEquals("<a>hi</a>", render("<a>{% generation %}{{ m }}{% endgeneration %}</a>", Map.of("m", "hi")));
    }

    @Test
    void errorsNameTheTemplatesLine() {
        JinjaException e = fails("a\nb\n{{ 1 / 0 }}");
        assertEquals("division by zero", e.getMessage());
        assertEquals(3, e.line());
        assertFalse(e.raised());
        JinjaException parse = assertThrows(JinjaException.class, () -> Template.compile("{% if x %}\n\n{% endfor %}"));
        assertEquals(3, parse.line());
        assertEquals(2, fails("x\n{{ nofilter|frobnicate }}").line());
    }

    @Test
    void raiseExceptionIsTheTemplatesOwnMessage() {
        JinjaException e = fails("\n{{ raise_exception('roles must alternate') }}");
        assertEquals("roles must alternate", e.getMessage());
        assertTrue(e.raised());
        assertEquals(2, e.line());
    }

    @Test
    void templatesReachNoJavaObject() {
        // Python's attributes only: no getClass, no Java method, nothing printed of a Java class
        assertEquals(
                "||", render("{{ s.getClass }}|{{ s.__class__ }}|{{ m.getClass }}", Map.of("s", "x", "m", Map.of())));
        JinjaException e = fails("{{ ''.getClass().getName() }}");
        assertFalse(e.getMessage().contains("java"), e.getMessage());
        assertThrows(JinjaException.class, () -> render("{{ m.entrySet() }}", Map.of("m", Map.of("a", 1))));
    }

    @Test
    void aHugeStringIsRefusedBeforeItExists() {
        // Jinjava built it (13 s, 4.2 GB of RSS) and only then found it over its output cap
        JinjaException e = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> fails("{{ 'x' * 2000000000 }}"));
        assertTrue(e.getMessage().contains("over the limit"), e.getMessage());
    }

    @Test
    void aListDoubledFortyTimesIsRefusedBeforeTheHeapFills() {
        JinjaException e = assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> fails(
                        "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}"));
        assertTrue(e.getMessage().contains("over the limit"), e.getMessage());
        assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> fails(
                        "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"));
        assertTimeoutPreemptively(
                Duration.ofSeconds(20),
                () -> fails(
                        "{% set l = [] %}{% for i in range(99999) %}{% for j in range(99999) %}{% set _ = l.append(j) %}{% endfor %}{% endfor %}"));
    }

    @Test
    void endlessLoopsAndRecursionStop() {
        // generous timeouts: they catch a bound that does not hold, not a slow machine
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            Template loops = Template.compile(
                            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
                    .withLimits(new Limits(1 << 20, 100_000, 100, 1 << 20, 1 << 24));
            assertTrue(assertThrows(JinjaException.class, () -> loops.render(Map.of()))
                    .getMessage()
                    .contains("100000 steps"));
            assertEquals(
                    "maximum recursion depth exceeded",
                    fails("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}")
                            .getMessage());
            assertTrue(fails("{{ range(1000000) }}").getMessage().contains("MAX_RANGE"));
            assertTrue(fails("{{ 2 ** 100000000 }}").getMessage().contains("bits"));
        });
    }

    @Test
    void outputIsBounded() {
        Template t = Template.compile("{% for i in range(100) %}0123456789{% endfor %}")
                .withLimits(new Limits(500, 1000, 10, 1000, 10000));
        JinjaException e = assertThrows(JinjaException.class, () -> t.render(Map.of()));
        assertTrue(e.getMessage().contains("output is over 500"), e.getMessage());
        assertEquals(
                1000,
                Template.compile("{% for i in range(100) %}0123456789{% endfor %}")
                        .render(Map.of())
                        .length());
    }

    @Test
    void aReadOnlyValueStaysUnchanged() {
        List<Object> mine = List.of(1L);
        assertThrows(JinjaException.class, () -> render("{% set _ = l.append(2) %}", Map.of("l", mine)));
        List<Object> mutable = new ArrayList<>(List.of(1L));
        assertEquals("[1, 2]", render("{% set _ = l.append(2) %}{{ l }}", Map.of("l", mutable)));
    }

    @Test
    void rendersConcurrentlyFromOneCompiledTemplate() throws Exception {
        Template t = Template.compile(
                "{%- set ns = namespace(n=0) %}{% for m in ms %}{% set ns.n = ns.n + 1 %}{{ m }}{% endfor %}:{{ ns.n }}");
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                int n = i % 7 + 1;
                results.add(pool.submit(() -> t.render(Map.of(
                        "ms", java.util.stream.IntStream.range(0, n).boxed().toList()))));
            }
            for (int i = 0; i < 64; i++) {
                int n = i % 7 + 1;
                StringBuilder want = new StringBuilder();
                for (int k = 0; k < n; k++) {
                    want.append(k);
                }
                assertEquals(want + ":" + n, results.get(i).get());
            }
        }
    }
}
