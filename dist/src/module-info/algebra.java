module algebra {
    requires com.fasterxml.jackson.databind;
    requires com.google.common;

    requires transitive com.fasterxml.jackson.annotation;

    exports com.hubspot.algebra;

}
