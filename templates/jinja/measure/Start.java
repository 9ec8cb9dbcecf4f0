import forge.template.testkit.GoldenCorpus;
import java.nio.file.*;
import java.time.*;

/** One cold start: compile the Qwen3 template with one engine and render one golden case; prints ms since JVM start. */
public class Start {
    public static void main(String[] a) throws Exception {
        Path golden = Path.of(a[1]);
        System.setProperty("forge.golden.dir", golden.toString());
        String source = Files.readString(golden.resolve("sources/Qwen-Qwen3-0.6B.jinja"));
        var prompt = GoldenCorpus.locate().expected("qwen3").stream().filter(x -> x.caseName().equals("tool_call_single")).findFirst().orElseThrow().prompt();
        Clock clock = Clock.fixed(Instant.parse("2025-01-01T00:00:00Z"), ZoneOffset.UTC);
        String out = a[0].equals("jinjava")
                ? Bench.newJinjava(source, "", "<|im_end|>", clock).render(prompt)
                : forge.template.jinja.Template.compile(source).withClock(clock).render(Bench.context(prompt, new String[] {"", "<|im_end|>"}));
        long ms = System.currentTimeMillis() - ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli();
        System.out.println(a[0] + " first render done " + ms + " ms after JVM start, " + out.length() + " chars");
    }
}
