module org.apache.commons.net {
    exports org.apache.commons.net;
    exports org.apache.commons.net.bsd;
    exports org.apache.commons.net.chargen;
    exports org.apache.commons.net.daytime;
    exports org.apache.commons.net.discard;
    exports org.apache.commons.net.echo;
    exports org.apache.commons.net.finger;
    exports org.apache.commons.net.ftp;
    exports org.apache.commons.net.ftp.parser;
    exports org.apache.commons.net.imap;
    exports org.apache.commons.net.io;
    exports org.apache.commons.net.nntp;
    exports org.apache.commons.net.ntp;
    exports org.apache.commons.net.pop3;
    exports org.apache.commons.net.smtp;
    exports org.apache.commons.net.telnet;
    exports org.apache.commons.net.tftp;
    exports org.apache.commons.net.time;
    exports org.apache.commons.net.util;
    exports org.apache.commons.net.whois;

}
