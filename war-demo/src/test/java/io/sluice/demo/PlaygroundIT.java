package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The playground page in real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}; other paths
 * with {@code -Dchromium.binary=...} and {@code -Dchromedriver.binary=...}). Never skipped: without Chromium it fails
 * and says how to install it. Waits on page conditions, never on time. The WAR is deployed at {@code /demo}, so the
 * page is shown to work at any context path.
 */
class PlaygroundIT {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    @RegisterExtension    // not the root context: the page must call its own WAR
    static final RunningDemo demo = RunningDemo.at("/demo");
    private static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        Path chromium = executable("chromium.binary", "/usr/bin/chromium");
        Path chromedriver = executable("chromedriver.binary", "/usr/bin/chromedriver");
        ChromeOptions options = new ChromeOptions()
                .setBinary(chromium.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--window-size=1280,1000");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromedriver.toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    private static Path executable(String property, String fallback) {
        Path path = Path.of(System.getProperty(property, fallback));
        if (!Files.isExecutable(path)) {
            throw new AssertionError("The playground test drives real headless Chromium, and " + path + " is missing."
                    + " Install it with: apt-get install -y chromium chromium-driver"
                    + " (or point -D" + property + "=... at another binary).");
        }
        return path;
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
    }

    @BeforeEach
    void openPlayground() {
        browser.get(demo.baseUri() + "/");
        new WebDriverWait(browser, PATIENCE).until(ExpectedConditions.textToBe(By.id("status-line"), "Idle."));
    }

    @Test
    void everyEndpointIsOfferedWithItsPolicy() {
        Select endpoint = new Select(browser.findElement(By.id("endpoint")));

        assertThat(endpoint.getOptions()).extracting(o -> o.getDomAttribute("value")).contains("/api/hello",
                "/api/algorithms/fixed-window", "/api/algorithms/sliding-window", "/api/algorithms/sliding-log",
                "/api/algorithms/token-bucket", "/api/algorithms/leaky-bucket", "/api/algorithms/gcra",
                "/api/algorithms/warm-up", "/api/algorithms/concurrency", "/api/jaxrs/greeting");
        assertThat(text("policy")).isEqualTo("5 per 10 s, fixed window");
        endpoint.selectByValue("/api/algorithms/gcra");
        assertThat(text("policy")).isEqualTo("GCRA: 2 per second, burst 5");
    }

    @Test
    void theCurlExampleNamesThisServer() {
        assertThat(text("curl-example")).isEqualTo("curl -i " + demo.baseUri() + "/api/hello");
    }

    @Test
    void firingAtTheSlidingLogChartsOneAllowedAndTheRestDenied() {
        fire("/api/algorithms/sliding-log", 6, 50);   // 6 requests within 100 ms; the log wants 1 s between two

        assertThat(text("allowed-count")).isEqualTo("1");
        assertThat(text("denied-count")).isEqualTo("5");
        assertThat(charted("allowed")).isEqualTo(1);
        assertThat(charted("denied")).isEqualTo(5);
        assertThat(text("last-status")).startsWith("429");
        assertThat(text("last-url")).isEqualTo("GET /demo/api/algorithms/sliding-log");
        assertThat(text("last-headers")).contains("retry-after: 1", "ratelimit-policy: \"sliding-log\";q=5;w=10",
                "x-ratelimit-remaining: 0");
        assertThat(text("last-body")).contains("\"code\":\"rate_limited\"", "\"policy\":\"sliding-log\"");
    }

    @Test
    void firingAtTheConcurrencyEndpointShowsTwoInFlightAllowed() {
        fire("/api/algorithms/concurrency", 4, 100);   // all 4 overlap: each takes 1 s

        assertThat(text("allowed-count")).isEqualTo("2");
        assertThat(text("denied-count")).isEqualTo("2");
        assertThat(text("last-status")).startsWith("200");
        assertThat(text("last-body")).isEqualTo("concurrency: allowed");
        assertThat(text("last-headers")).contains("ratelimit-policy: \"concurrency\";q=2");
    }

    /** Issue 24: the time axis had one label ("0 s") for a short run. */
    @Test
    void theTimeAxisIsLabelledEveryFiveSecondsOverTheWholeChart() {
        List<String> labels = browser.findElements(By.cssSelector("#chart text")).stream().map(WebElement::getText)
                .filter(t -> t.endsWith(" s")).toList();

        assertThat(labels).containsExactly("0 s", "5 s", "10 s", "15 s", "20 s", "25 s");
    }

    /**
     * Issue 24: bars were placed by when the answer came, so a concurrency run showed its denials (answered at once)
     * before the admitted requests that caused them (answered after their 1 s). They are placed by when sent.
     */
    @Test
    void barsStandWhereTheirRequestsWereSentSoDenialsFollowTheRequestsThatCausedThem() {
        fire("/api/algorithms/concurrency", 4, 4);   // sent at 0, 0.25, 0.5 and 0.75 s; the first two take 1 s

        assertThat(text("allowed-count")).isEqualTo("2");
        assertThat(text("denied-count")).isEqualTo("2");
        assertThat(buckets("allowed")).as("sent in the first half second, answered in the third").containsOnly(0);
        assertThat(buckets("denied")).as("sent in the second half second, answered at once").containsOnly(1);
    }

    @Test
    void clearEmptiesTheChartAndTheTotals() {
        fire("/api/algorithms/gcra", 2, 10);

        browser.findElement(By.id("clear")).click();

        assertThat(text("allowed-count")).isEqualTo("0");
        assertThat(text("denied-count")).isEqualTo("0");
        assertThat(browser.findElements(By.cssSelector("#chart rect"))).isEmpty();
    }

    @Test
    void answersToRequestsInFlightWhenClearedAreNotCountedAfterwards() {
        start("/api/algorithms/concurrency", 2, 100);   // each takes 1 s
        new WebDriverWait(browser, PATIENCE).until(ExpectedConditions.textToBe(By.id("inflight-count"), "2"));

        browser.findElement(By.id("clear")).click();
        // both answered (the browser's resource timing), then a new run: the old answers came in before it
        new WebDriverWait(browser, PATIENCE).until(b -> ((Number) browser.executeScript(
                "return performance.getEntriesByType('resource')"
                        + ".filter(function (e) { return e.name.endsWith('/api/algorithms/concurrency'); }).length"))
                .intValue() == 2);
        fire("/api/hello", 1, 10);

        assertThat(text("status-line")).isEqualTo("Done: 1 allowed, 0 denied, 0 other.");
        assertThat(text("allowed-count")).isEqualTo("1");
        assertThat(text("inflight-count")).isEqualTo("0");
        assertThat(charted("allowed")).isEqualTo(1);
        assertThat(text("last-url")).isEqualTo("GET /demo/api/hello");
    }

    /** Fires from the page and waits until every response is in the chart. */
    private static void fire(String endpoint, int requests, int perSecond) {
        start(endpoint, requests, perSecond);
        new WebDriverWait(browser, PATIENCE)
                .until(ExpectedConditions.textMatches(By.id("status-line"), Pattern.compile("^Done.*")));
    }

    /** Fires from the page and returns at once. */
    private static void start(String endpoint, int requests, int perSecond) {
        new Select(browser.findElement(By.id("endpoint"))).selectByValue(endpoint);
        type("count", requests);
        type("rate", perSecond);
        browser.findElement(By.id("fire")).click();
    }

    private static void type(String id, int value) {
        WebElement input = browser.findElement(By.id(id));
        input.clear();
        input.sendKeys(String.valueOf(value));
    }

    private static String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }

    /** @return the half seconds (from the first request) of the chart's bars of {@code kind} */
    private static List<Integer> buckets(String kind) {
        return browser.findElements(By.cssSelector("#chart rect." + kind)).stream()
                .map(bar -> Integer.parseInt(bar.getDomAttribute("data-bucket"))).toList();
    }

    /** @return the requests of {@code kind} that the chart's bars add up to */
    private static int charted(String kind) {
        List<WebElement> bars = browser.findElements(By.cssSelector("#chart rect." + kind));
        return bars.stream().mapToInt(bar -> Integer.parseInt(bar.getDomAttribute("data-count"))).sum();
    }
}
