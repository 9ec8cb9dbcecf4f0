/**
 * The {@code top_a} stage. A request turns it on by naming it:
 *
 * {@snippet lang=json :
 * {"samplers": ["penalties", "top_a", "temperature"], "top_a_a": 0.2}
 * }
 */
package com.example.topa;
