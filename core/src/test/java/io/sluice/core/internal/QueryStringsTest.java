package io.sluice.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QueryStringsTest {

    @Test
    void findsTheFirstValueDecoded() {
        assertThat(QueryStrings.parameter("a=1&client=c%7C1&client=2", "client")).isEqualTo("c|1");
        assertThat(QueryStrings.parameter("cl%69ent=x+y", "client")).as("an encoded name").isEqualTo("x y");
        assertThat(QueryStrings.parameter("flag&client", "client")).as("no '='").isEmpty();
        assertThat(QueryStrings.parameter("client=", "client")).isEmpty();
        assertThat(QueryStrings.parameter("a=1", "client")).isNull();
        assertThat(QueryStrings.parameter(null, "client")).isNull();
        assertThat(QueryStrings.parameter("&&client=c1&", "client")).isEqualTo("c1");
    }

    @Test
    void aMalformedValueIsOneKeyNotAMissingOneNorAFreshOneEachTime() {
        assertThat(QueryStrings.parameter("client=c1%", "client")).isEqualTo(QueryStrings.MALFORMED);
        assertThat(QueryStrings.parameter("client=%zzR2&client=K", "client")).as("not the raw text, which a client "
                + "could vary while the container gives the application K").isEqualTo(QueryStrings.MALFORMED);
        assertThat(QueryStrings.parameter("cl%zz=1&client=c1", "client")).as("a malformed name is no match")
                .isEqualTo("c1");
    }

    @Test
    void paddingNeverMakesTheParameterMissing() {
        String pad = "pad=" + "x".repeat(QueryStrings.MAX_SCANNED);
        assertThat(QueryStrings.parameter("client=c1&" + pad, "client")).as("found before the padding").isEqualTo("c1");
        assertThat(QueryStrings.parameter(pad + "&client=c1", "client")).as("not looked for beyond the bound: all such "
                + "requests share one key").isEqualTo(QueryStrings.TOO_LONG);
        assertThat(QueryStrings.parameter(pad, "client")).as("one long parameter, read to its end").isNull();
        assertThat(QueryStrings.parameter("a&".repeat(QueryStrings.MAX_SCANNED) + "=", "client"))
                .isEqualTo(QueryStrings.TOO_LONG);
        assertThat(QueryStrings.parameter("a=" + "x".repeat(QueryStrings.MAX_SCANNED - 10), "client"))
                .as("a query within the bound without the parameter").isNull();
    }
}
