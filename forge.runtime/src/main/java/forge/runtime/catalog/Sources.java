package forge.runtime.catalog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the {@link ModelSource}s share but do not export: a field of the interface would be public API. */
final class Sources {

    /** Where the sources report files they skip, under ModelSource's name. */
    static final Logger LOG = LoggerFactory.getLogger(ModelSource.class);

    private Sources() {}
}
