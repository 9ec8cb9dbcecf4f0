package forge.template.generic.jinja;

import com.hubspot.jinjava.objects.collections.PyList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A Python tuple: what {@code dict.items()}, {@code |items}, {@code |dictsort} and a literal
 * {@code (a, b)} yield. It indexes and unpacks like a list but prints as {@code ('a', 1)},
 * cannot change, and is not equal to a list. A {@link PyList}, so Jinjava passes it on unwrapped.
 */
final class PyTuple extends PyList {

    PyTuple(List<?> items) {
        super(Collections.unmodifiableList(new ArrayList<Object>(items)));
    }

    static PyTuple of(Object... items) {
        return new PyTuple(Arrays.asList(items));
    }
}
