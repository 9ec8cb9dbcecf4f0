/**
 * The {@code plain} template family.
 *
 * {@snippet :
 * ChatTemplate t = new PlainTemplates().create("plain-1", context);
 * t.render(ChatPrompt.of(List.of(ChatMessage.of(Role.USER, "Hi")))); // "User: Hi\nAssistant:"
 * }
 */
package com.example.plaintemplate;
