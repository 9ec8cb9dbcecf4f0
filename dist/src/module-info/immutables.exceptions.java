module immutables.exceptions {
    requires com.google.common;

    exports com.hubspot.immutables.validation;

}
