package io.sluice.core.config;

/**
 * Invalid configuration. The message names the parameter and quotes the value, for example
 * {@code sluice.limit: expected "<n>/<period>" such as "100/1m", got "100 per minute"}.
 */
public class ConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String parameter;
    private final String value;

    /**
     * @param parameter the configuration parameter, such as {@code limit}
     * @param value the rejected value, quoted in the message
     * @param expectation what a valid value looks like
     */
    public ConfigException(String parameter, String value, String expectation) {
        super(parameter + ": " + expectation + ", got " + quote(value));
        this.parameter = parameter;
        this.value = value;
    }

    /** @param message a complete message, for errors not tied to one parameter value */
    public ConfigException(String message) {
        super(message);
        this.parameter = null;
        this.value = null;
    }

    /** @return the parameter that was invalid, or null */
    public String parameter() {
        return parameter;
    }

    /** @return the rejected value, or null */
    public String value() {
        return value;
    }

    private static String quote(String value) {
        if (value == null) {
            return "nothing";
        }
        String shown = value.length() > 200 ? value.substring(0, 200) + "..." : value;
        return '"' + shown + '"';
    }
}
