package forge.runtime.catalog;

import forge.api.ForgeException;
import forge.api.model.ModelDescriptor;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateClaim;
import forge.runtime.plugin.Discovered;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Chooses a model's chat template: the configured name first; then the providers' claims on the
 * GGUF metadata; then their claims on the model's names; then {@code generic}.
 *
 * <p>A configured name is looked up in the families before the generic plugin: the generic plugin
 * also answers to llama-server's built-in names ({@code llama2}, {@code chatml}, ...), and where a
 * family has a variant spelled like one of them ({@code kimi-k2}), the family's own wins.
 */
public final class TemplateSelector {

    private static final Logger LOG = LoggerFactory.getLogger(TemplateSelector.class);
    public static final String FALLBACK = "generic";

    private final List<ChatTemplateProvider> providers;
    /** Variant name to its provider, in discovery order: from the names checked at discovery, so no provider is asked again. */
    private final Map<String, ChatTemplateProvider> byVariant = new LinkedHashMap<>();

    /**
     * @param providers as discovered; each one's names are those its discovery settled
     *                  ({@link Discovered#names()}), or, for one made by hand with none, its variants
     */
    public TemplateSelector(List<Discovered<ChatTemplateProvider>> providers) {
        // A stable sort: the families in discovery order, then the fallback, so that a family's variant wins a shared
        // name.
        List<Discovered<ChatTemplateProvider>> ordered = providers.stream()
                .sorted(Comparator.comparing(TemplateSelector::isFallback))
                .toList();
        this.providers = ordered.stream().map(Discovered::provider).toList();
        for (Discovered<ChatTemplateProvider> d : ordered) {
            List<String> names = d.names().isEmpty()
                    ? d.provider().variants().stream().map(v -> v.name()).toList()
                    : d.names();
            for (String name : names) {
                byVariant.putIfAbsent(name, d.provider());
            }
        }
    }

    /** Whether {@code d} is the generic fallback; a provider whose {@code family()} throws now is taken for a family. */
    private static boolean isFallback(Discovered<ChatTemplateProvider> d) {
        try {
            return FALLBACK.equals(d.provider().family());
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** The provider that renders {@code variant}, if any. */
    public Optional<ChatTemplateProvider> providerOf(String variant) {
        return Optional.ofNullable(byVariant.get(variant));
    }

    /** Every variant name, in discovery order (the fallback's last), each once. */
    public List<String> variants() {
        return List.copyOf(byVariant.keySet());
    }

    /**
     * @param configured the name given with {@code --template} or in the model's configuration; empty for none
     * @throws ForgeException when {@code configured} names no known template, or when no template
     *                        (not even {@code generic}) is installed
     */
    public TemplateSelection select(ModelDescriptor model, String configured) {
        if (!configured.isEmpty()) {
            ChatTemplateProvider p = providerOf(configured)
                    .orElseThrow(() -> new ForgeException(
                            "unknown chat template '" + configured + "'; installed: " + installed()));
            return new TemplateSelection(p, configured, "configured", "--template " + configured);
        }
        List<Candidate> claims = new ArrayList<>();
        for (ChatTemplateProvider p : providers) {
            try {
                p.claim(model).ifPresent(c -> claims.add(new Candidate(p, c)));
            } catch (RuntimeException | LinkageError e) {
                // A provider's bug must not stop the model from being served.
                LOG.warn(
                        "template provider {} failed to inspect {}: {}",
                        p.getClass().getName(),
                        model.id(),
                        e.toString());
            }
        }
        Optional<Candidate> best = claims.stream()
                .filter(c -> providerOf(c.claim().variant()).isPresent())
                .min(Comparator.comparing((Candidate c) -> c.claim().rule())
                        .thenComparing(c -> -c.claim().confidence()));
        if (best.isPresent()) {
            TemplateClaim c = best.get().claim();
            return new TemplateSelection(
                    best.get().provider(), c.variant(), c.rule().name().toLowerCase(Locale.ROOT), c.reason());
        }
        ChatTemplateProvider fallback = providerOf(FALLBACK)
                .orElseThrow(() -> new ForgeException(
                        "no chat template claims " + model.id() + " and the generic template is not installed"));
        return new TemplateSelection(fallback, FALLBACK, "fallback", "no family claimed the model");
    }

    /** The accepted names by family, for the error a wrong name gets: ForgeLM's families, then generic's, with llama-server's names. */
    private String installed() {
        return providers.stream()
                        .map(p -> p.family() + " ("
                                + String.join(
                                        ", ",
                                        p.variants().stream().map(v -> v.name()).toList()) + ")")
                        .collect(Collectors.joining("; "))
                + (providerOf(FALLBACK).isPresent()
                        ? " (generic's names besides 'generic' are llama-server's built-in chat templates)"
                        : "");
    }

    private record Candidate(ChatTemplateProvider provider, TemplateClaim claim) {}
}
