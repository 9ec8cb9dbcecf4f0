package forge.template.toolkit;

import forge.api.model.ModelDescriptor;
import forge.api.model.ModelMetadata;
import forge.api.template.ChatTemplateProvider;
import forge.api.template.TemplateClaim;
import forge.api.template.TemplateVariant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * What every family provider shares: its name and variants, given once; the refusal of a variant
 * it does not have; and the claim steps the families take alike, in the order they take them
 * ({@link #claimInOrder}).
 *
 * {@snippet :
 * public final class KimiTemplates extends TemplateFamily {
 *     public KimiTemplates() {
 *         super("kimi", List.of(new TemplateVariant("kimi-k2", "Kimi K2: section-token tool calls")));
 *     }
 *
 *     public ChatTemplate create(String variant, TemplateContext context) {
 *         return new KimiTemplate(requireVariant(variant));  // "unknown variant 'x' of family kimi" otherwise
 *     }
 *
 *     public Optional<TemplateClaim> claim(ModelDescriptor model) {
 *         return claimInOrder(model, OFFICIAL, KimiTemplates::variantOf, meta -> Optional.empty());
 *     }
 * }
 * }
 */
public abstract class TemplateFamily implements ChatTemplateProvider {

    /** How sure a claim from {@code general.name} or {@code general.basename} is (the model's own template is surer). */
    public static final int METADATA_NAME_CONFIDENCE = 50;

    private final String family;
    private final List<TemplateVariant> variants;

    /**
     * @param family   the family's name
     * @param variants its variants, in the order {@code /templates} lists them
     */
    protected TemplateFamily(String family, List<TemplateVariant> variants) {
        this.family = Objects.requireNonNull(family);
        this.variants = List.copyOf(variants);
    }

    @Override
    public final String family() {
        return family;
    }

    @Override
    public final List<TemplateVariant> variants() {
        return variants;
    }

    /**
     * {@code variant}, when it is one of this family's.
     *
     * @throws IllegalArgumentException naming the variant and the family, when it is not
     */
    protected final String requireVariant(String variant) {
        if (variants.stream().noneMatch(v -> v.name().equals(variant))) {
            throw new IllegalArgumentException("unknown variant '" + variant + "' of family " + family);
        }
        return variant;
    }

    /** A claim from the model's metadata. */
    protected static Optional<TemplateClaim> claim(String variant, int confidence, String reason) {
        return Optional.of(new TemplateClaim(variant, TemplateClaim.Rule.METADATA, confidence, reason));
    }

    /**
     * The model's own names, {@code general.name} then {@code general.basename}, where present.
     */
    protected static List<String> metadataNames(ModelMetadata meta) {
        List<String> names = new ArrayList<>();
        meta.name().ifPresent(names::add);
        meta.basename().ifPresent(names::add);
        return names;
    }

    /**
     * The claim of the first of the model's own names ({@link #metadataNames}) that names a
     * variant ({@code variantOf}), with {@link #METADATA_NAME_CONFIDENCE}; empty when none does.
     */
    protected static Optional<TemplateClaim> claimByMetadataName(
            ModelMetadata meta, Function<String, Optional<String>> variantOf) {
        for (String n : metadataNames(meta)) {
            Optional<String> v = variantOf.apply(n);
            if (v.isPresent()) {
                return claim(v.get(), METADATA_NAME_CONFIDENCE, "general.name '" + n + "'");
            }
        }
        return Optional.empty();
    }

    /**
     * The claim steps every family takes, in this order. A model that carries a chat template is
     * claimed only when that template is one of the family's {@code official} ones (source
     * fingerprint to variant, {@link TemplateFingerprint}), as {@code byOfficial} says for that
     * variant: any other template, whatever the model's names say, is rendered as written by the
     * generic plugin. A model without one is claimed by its own names ({@link #claimByMetadataName}),
     * then by the family's signs in its metadata ({@code bySigns}: architecture, pre-tokenizer), then
     * by its id and aliases ({@link TemplateClaim#byName}).
     */
    protected static Optional<TemplateClaim> claimInOrder(
            ModelDescriptor model,
            Map<String, String> official,
            Function<String, Optional<TemplateClaim>> byOfficial,
            Function<String, Optional<String>> variantOf,
            Function<ModelMetadata, Optional<TemplateClaim>> bySigns) {
        ModelMetadata meta = model.metadata();
        Optional<String> template = meta.chatTemplate().filter(t -> !t.isBlank());
        if (template.isPresent()) {
            return TemplateFingerprint.lookup(official, template.get()).flatMap(byOfficial);
        }
        return claimByMetadataName(meta, variantOf)
                .or(() -> bySigns.apply(meta))
                .or(() -> TemplateClaim.byName(model, variantOf));
    }

    /**
     * {@link #claimInOrder(ModelDescriptor, Map, Function, Function, Function)} where the official
     * template claims its variant as {@link #claimOfficial} words it.
     */
    protected static Optional<TemplateClaim> claimInOrder(
            ModelDescriptor model,
            Map<String, String> official,
            Function<String, Optional<String>> variantOf,
            Function<ModelMetadata, Optional<TemplateClaim>> bySigns) {
        return claimInOrder(model, official, TemplateFamily::claimOfficial, variantOf, bySigns);
    }

    /**
     * The family's signs, for {@link #claimInOrder}, read from {@code general.architecture}: the
     * claim, with confidence 30 (below the model's own names), of the variant that
     * {@code variantOfArchitecture} gives for it; none without one.
     */
    protected static Function<ModelMetadata, Optional<TemplateClaim>> byArchitecture(
            Function<String, Optional<String>> variantOfArchitecture) {
        return meta -> meta.architecture()
                .flatMap(a -> variantOfArchitecture.apply(a).flatMap(v -> claim(v, 30, "general.architecture " + a)));
    }

    /** The surest claim: the model's chat template is the family's official one for {@code variant}. */
    protected static Optional<TemplateClaim> claimOfficial(String variant) {
        return claim(variant, 100, "tokenizer.chat_template is " + variant + "'s official one");
    }
}
