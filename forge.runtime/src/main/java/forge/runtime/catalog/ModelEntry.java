package forge.runtime.catalog;

import forge.api.model.ModelDescriptor;
import java.util.Objects;
import java.util.Optional;

/**
 * A model the catalog knows, loaded or not.
 */
public final class ModelEntry {

    private final ModelDescriptor descriptor;
    private final TemplateSelection template;
    private volatile ServedModel served;

    ModelEntry(ModelDescriptor descriptor, TemplateSelection template) {
        this.descriptor = Objects.requireNonNull(descriptor);
        this.template = Objects.requireNonNull(template);
    }

    public ModelDescriptor descriptor() {
        return descriptor;
    }

    public String id() {
        return descriptor.id();
    }

    /** The chat template chosen for this model, and why. */
    public TemplateSelection template() {
        return template;
    }

    /** The served model, when it is loaded. */
    public Optional<ServedModel> served() {
        return Optional.ofNullable(served);
    }

    void served(ServedModel model) {
        this.served = model;
    }
}
