package forge.api.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class WireNamesTest {

    private enum Two {
        A,
        B
    }

    @Test
    void findsTheConstantIgnoringCaseAndListsTheSpellingsWhenThereIsNone() {
        assertEquals(Two.B, WireNames.parse(Two.values(), t -> t.name().toLowerCase(), "B", "letter"));
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> WireNames.parse(Two.values(), t -> t.name().toLowerCase(), "c", "letter"));
        assertEquals("letter must be a or b, not 'c'", e.getMessage());
        var npe = assertThrows(
                NullPointerException.class,
                () -> WireNames.parse(Two.values(), t -> t.name().toLowerCase(), null, "letter"));
        assertEquals("letter", npe.getMessage());
    }
}
