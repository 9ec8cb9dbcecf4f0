module org.javassist {
    requires static java.management;
    requires static jdk.attach;

    requires static java.desktop;
    requires static java.instrument;
    requires static jdk.jdi;

    exports javassist;
    exports javassist.bytecode;
    exports javassist.bytecode.analysis;
    exports javassist.bytecode.annotation;
    exports javassist.bytecode.stackmap;
    exports javassist.compiler;
    exports javassist.compiler.ast;
    exports javassist.convert;
    exports javassist.expr;
    exports javassist.runtime;
    exports javassist.scopedpool;
    exports javassist.tools;
    exports javassist.tools.reflect;
    exports javassist.tools.rmi;
    exports javassist.tools.web;
    exports javassist.util;
    exports javassist.util.proxy;

}
