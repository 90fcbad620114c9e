<?php
/**
 * Reading wp-admin pages as a browser would: XPath over the HTML, and a form's fields
 * (with their current values) to submit it back.
 */
final class Html {
    public DOMXPath $xpath;
    public string $html;

    public function __construct(string $html) {
        $this->html = $html;
        $doc = new DOMDocument();
        libxml_use_internal_errors(true);
        $doc->loadHTML('<?xml encoding="utf-8"?>' . $html, LIBXML_NOWARNING | LIBXML_NOERROR);
        libxml_clear_errors();
        $this->xpath = new DOMXPath($doc);
    }

    /** @return DOMElement[] */
    public function all(string $xpath): array {
        $out = [];
        foreach ($this->xpath->query($xpath) as $n) {
            $out[] = $n;
        }
        return $out;
    }

    public function one(string $xpath): ?DOMElement {
        $n = $this->xpath->query($xpath);
        return $n && $n->length ? $n->item(0) : null;
    }

    public function text(string $xpath): string {
        $n = $this->one($xpath);
        return $n ? trim($n->textContent) : '';
    }

    /**
     * The successful controls of a form (inputs, checked boxes, selects, textareas), as a
     * browser would post them: name => value (names ending in [] collect lists).
     */
    public function formFields(DOMElement $form): array {
        $fields = [];
        $add = static function (string $name, string $value) use (&$fields) {
            if ($name === '') {
                return;
            }
            $fields[] = [$name, $value];
        };
        foreach ((new DOMXPath($form->ownerDocument))->query('.//input|.//select|.//textarea', $form) as $el) {
            /** @var DOMElement $el */
            $name = $el->getAttribute('name');
            if ($el->hasAttribute('disabled')) {
                continue;
            }
            $tag = strtolower($el->tagName);
            if ($tag === 'input') {
                $type = strtolower($el->getAttribute('type') ?: 'text');
                if (in_array($type, ['submit', 'button', 'image', 'reset', 'file'], true)) {
                    continue;
                }
                if (in_array($type, ['checkbox', 'radio'], true) && !$el->hasAttribute('checked')) {
                    continue;
                }
                $add($name, $el->hasAttribute('value') ? $el->getAttribute('value') : (in_array($type, ['checkbox', 'radio'], true) ? 'on' : ''));
            } elseif ($tag === 'textarea') {
                $add($name, $el->textContent);
            } else {
                $selected = null;
                foreach ($el->getElementsByTagName('option') as $i => $opt) {
                    if ($i === 0 || $opt->hasAttribute('selected')) {
                        $selected = $opt->getAttribute('value');
                    }
                }
                $add($name, (string) $selected);
            }
        }
        return $fields;
    }

    /** Encodes [[name, value], ...] (or name => value) as a form body. */
    public static function encode(array $fields): string {
        $pairs = [];
        foreach ($fields as $k => $v) {
            [$name, $value] = is_int($k) && is_array($v) ? $v : [$k, $v];
            $pairs[] = rawurlencode($name) . '=' . rawurlencode((string) $value);
        }
        return implode('&', $pairs);
    }

    /** Replaces (or adds) fields by name in [[name, value], ...]. */
    public static function with(array $fields, array $changes): array {
        $out = [];
        foreach ($fields as [$name, $value]) {
            if (!array_key_exists($name, $changes)) {
                $out[] = [$name, $value];
            }
        }
        foreach ($changes as $name => $value) {
            foreach ((array) $value as $v) {
                if ($v !== null) {
                    $out[] = [$name, (string) $v];
                }
            }
        }
        return $out;
    }
}
