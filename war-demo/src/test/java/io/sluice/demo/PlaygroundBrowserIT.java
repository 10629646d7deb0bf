package io.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The playground in a real headless Chromium (Debian's {@code chromium} and {@code chromium-driver}, which
 * {@code .ci/run} installs): fire a burst at {@code /api/hello} and see the denied requests and the 429 body.
 */
class PlaygroundBrowserIT {

    private static final Path CHROMIUM = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getenv().getOrDefault("CHROMEDRIVER", "/usr/bin/chromedriver"));

    private static DemoServer demo;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws Exception {
        assertThat(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER))
                .as("the browser test needs Chromium and ChromeDriver (apt-get install chromium chromium-driver);"
                        + " looked for %s and %s", CHROMIUM, CHROMEDRIVER).isTrue();
        demo = DemoServer.start("127.0.0.1", 0);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + Files.createTempDirectory("chromium"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (demo != null) {
            demo.close();
        }
    }

    @Test
    void aBurstAtHelloShowsFiveAllowedThreeDeniedAndThe429Body() throws Exception {
        browser.get("http://127.0.0.1:" + demo.port() + "/");
        assertThat(browser.getTitle()).isEqualTo("Sluice playground");
        new Select(browser.findElement(By.id("endpoint"))).selectByValue("/api/hello");
        setValue("count", "8");
        setValue("rate", "20");
        browser.findElement(By.id("fire")).click();

        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.until(b -> text("allowed").equals("5") && text("denied").equals("3") && text("inflight").equals("0"));
        assertThat(text("status")).startsWith("429");
        assertThat(text("headers")).contains("RateLimit-Policy: \"hello\";q=5;w=10").contains("Retry-After:");
        assertThat(text("body")).contains("\"code\":\"rate_limited\"");
        Number redPixels = (Number) ((org.openqa.selenium.JavascriptExecutor) browser).executeScript(
                "const c = document.getElementById('chart'); const d = c.getContext('2d')"
                        + ".getImageData(0, 0, c.width, c.height).data; let n = 0;"
                        + "for (let i = 0; i < d.length; i += 4) { if (d[i] > 200 && d[i+1] < 120 && d[i+2] < 120) n++; }"
                        + "return n;");
        assertThat(redPixels.longValue()).as("denied requests drawn in the chart").isPositive();
        Path shot = Path.of("target", "playground.png");
        Files.createDirectories(shot.getParent());
        Files.write(shot, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private static void setValue(String id, String value) {
        var input = browser.findElement(By.id(id));
        input.clear();
        input.sendKeys(value);
    }

    private static String text(String id) {
        return browser.findElement(By.id(id)).getText();
    }
}
