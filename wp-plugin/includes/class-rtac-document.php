<?php
/**
 * A post as the sidecar's document: what may be sent, and its rendered text.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Document {

	/** @return string[] */
	public static function synced_types(): array {
		$types = apply_filters( 'rtac_sync_post_types', array( 'post', 'page', 'product', Rtac_Registry::POST_TYPE_KB ) );
		return array_values( array_filter( array_map( 'strval', (array) $types ) ) );
	}

	public static function is_synced_type( string $post_type ): bool {
		return in_array( $post_type, self::synced_types(), true );
	}

	/**
	 * Whether the post belongs in the sidecar: only what an anonymous visitor
	 * may read on the site. Drafts, scheduled, private and password-protected
	 * posts never do (the assistant would quote them to anyone), whatever any
	 * filter says; a post a membership plugin restricts (Rtac_Access) does not
	 * by default.
	 */
	public static function is_public( WP_Post $post ): bool {
		if ( ! self::is_synced_type( $post->post_type ) || 'publish' !== $post->post_status || '' !== (string) $post->post_password ) {
			return false;
		}
		$default = '' === Rtac_Access::restriction( $post );
		/**
		 * Filters whether a published, unprotected post is sent to the assistant
		 * (false sends a delete). The default is false for a post a known
		 * membership plugin restricts, true otherwise; return true only for
		 * content you would show any visitor.
		 *
		 * @param bool    $default Whether it is sent.
		 * @param WP_Post $post    The post.
		 */
		return (bool) apply_filters( 'rtac_should_sync', $default, $post );
	}

	/**
	 * The document id of a post: its ID, and on a multisite network also its
	 * site ("<blog_id>:<post_id>") for every site but the first, so subsites
	 * that share one sidecar site never overwrite each other's documents. A
	 * single site keeps the plain ID (as `rtac import-wxr` writes it).
	 */
	public static function source_id( int $post_id, ?int $blog_id = null ): string {
		$blog_id = $blog_id ?? get_current_blog_id();
		return is_multisite() && 1 !== $blog_id ? $blog_id . ':' . $post_id : (string) $post_id;
	}

	/** The PUT /v1/documents entry of a post. */
	public static function payload( WP_Post $post ): array {
		$doc = array(
			'source'    => $post->post_type,
			'source_id' => self::source_id( (int) $post->ID ),
			'lang'      => Rtac_Language::for_post( $post ),
			'title'     => mb_substr( self::plain( $post->post_title ), 0, Rtac_Protocol::MAX_TITLE ),
			'url'       => is_post_type_viewable( $post->post_type ) ? (string) get_permalink( $post ) : '',
			'content'   => mb_substr( self::render_text( $post ), 0, Rtac_Protocol::MAX_DOCUMENT_CONTENT ),
		);
		if ( $post->post_modified_gmt && '0000-00-00 00:00:00' !== $post->post_modified_gmt ) {
			$doc['modified'] = gmdate( 'Y-m-d\TH:i:s\Z', (int) strtotime( $post->post_modified_gmt . ' UTC' ) );
		}
		/**
		 * Filters the document sent for a post (add custom fields, a price, ...).
		 *
		 * @param array   $doc  {source, source_id, lang, title, url, content, modified?}.
		 * @param WP_Post $post The post.
		 */
		return (array) apply_filters( 'rtac_document', $doc, $post );
	}

	/**
	 * The post as an anonymous visitor reads it on its page: `the_content`
	 * (blocks, shortcodes and whatever membership or paywall plugins do there)
	 * applied as on the public page, tags stripped, paragraphs kept apart.
	 */
	public static function render_text( WP_Post $post ): string {
		$content = (string) $post->post_content;
		if ( 'product' === $post->post_type && '' !== trim( (string) $post->post_excerpt ) ) {
			// WooCommerce keeps the short description (often the key facts) in the excerpt.
			$content = $post->post_excerpt . "\n\n" . $content;
		}
		/**
		 * Filters whether shortcodes are rendered (true) or stripped (false) when syncing.
		 *
		 * @param bool    $render Render them.
		 * @param WP_Post $post   The post.
		 */
		if ( ! apply_filters( 'rtac_sync_render_shortcodes', true, $post ) ) {
			$content = strip_shortcodes( $content );
		}
		$html = Rtac_Access::as_visitor(
			$post,
			static function () use ( $content ): string {
				// Some shortcodes and filters echo instead of returning; that output belongs to no page here.
				ob_start();
				try {
					return (string) apply_filters( 'the_content', $content ); // phpcs:ignore WordPress.NamingConventions.PrefixAllGlobals.NonPrefixedHooknameFound -- core's own filter, as the page applies it
				} finally {
					ob_end_clean();
				}
			}
		);
		return self::html_to_text( $html );
	}

	public static function html_to_text( string $html ): string {
		// Without these breaks "<p>Open</p><p>Mon</p>" would become "OpenMon".
		$html = (string) preg_replace( '#<br\s*/?>#i', "\n", $html );
		$html = (string) preg_replace( '#</(p|div|li|h[1-6]|tr|blockquote|pre|section|article|header|footer|figure|figcaption|table|ul|ol|dl|dd|dt)\s*>#i', "$0\n", $html );
		$html = (string) preg_replace( '#</t[dh]\s*>#i', '$0 ', $html );
		$text = wp_strip_all_tags( $html, false );
		$text = html_entity_decode( $text, ENT_QUOTES | ENT_HTML5, 'UTF-8' );
		$text = (string) preg_replace( '/[ \t\x{00A0}]+/u', ' ', $text );
		$text = (string) preg_replace( '/ *\n */', "\n", $text );
		$text = (string) preg_replace( '/\n{3,}/', "\n\n", $text );
		return trim( $text );
	}

	/** A title as plain text (no tags, no entities). */
	public static function plain( string $text ): string {
		return trim( html_entity_decode( wp_strip_all_tags( $text ), ENT_QUOTES | ENT_HTML5, 'UTF-8' ) );
	}
}
