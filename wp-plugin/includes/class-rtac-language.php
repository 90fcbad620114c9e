<?php
/**
 * Which language a visitor or a post is in, as a primary subtag ("et", "en").
 *
 * The sidecar keys documents and retrieval by the primary subtag, so the chat
 * turn, the pinned KB entries and the synced documents must all reduce a
 * language the same way, whichever multilingual plugin (if any) is active.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Language {

	/** "et_EE", "et-EE", "ET" -> "et"; '' when it is not a language tag. */
	public static function normalize( $value ): string {
		if ( ! is_string( $value ) ) {
			return '';
		}
		if ( preg_match( '/^([A-Za-z]{2,3})(?:[-_][A-Za-z0-9]{1,8})*$/', trim( $value ), $m ) ) {
			return strtolower( $m[1] );
		}
		return '';
	}

	/** Request lang, else Polylang, else WPML, else the site locale. */
	public static function for_visitor( ?string $requested = null ): string {
		$lang = self::normalize( $requested );
		if ( '' === $lang && function_exists( 'pll_current_language' ) ) {
			$lang = self::normalize( pll_current_language( 'slug' ) );
		}
		if ( '' === $lang ) {
			$lang = self::normalize( apply_filters( 'wpml_current_language', null ) );
		}
		return '' !== $lang ? $lang : self::site_default();
	}

	/** A post's language: rtac_kb meta, else Polylang, else WPML, else the site locale. */
	public static function for_post( WP_Post $post ): string {
		$lang = '';
		if ( Rtac_Registry::POST_TYPE_KB === $post->post_type ) {
			$lang = self::normalize( get_post_meta( $post->ID, Rtac_Registry::META_KB_LANG, true ) );
		}
		if ( '' === $lang && function_exists( 'pll_get_post_language' ) ) {
			$lang = self::normalize( pll_get_post_language( $post->ID, 'slug' ) );
		}
		if ( '' === $lang ) {
			$details = apply_filters( 'wpml_post_language_details', null, $post->ID );
			if ( is_array( $details ) ) {
				$lang = self::normalize( $details['language_code'] ?? '' );
			}
		}
		return '' !== $lang ? $lang : self::site_default();
	}

	public static function site_default(): string {
		$lang = self::normalize( get_locale() );
		return '' !== $lang ? $lang : 'en';
	}

	/**
	 * Languages to offer in the KB language picker: the multilingual plugin's
	 * list when there is one, else the site's own language.
	 *
	 * @return string[]
	 */
	public static function available(): array {
		$langs = array();
		if ( function_exists( 'pll_languages_list' ) ) {
			$langs = (array) pll_languages_list( array( 'fields' => 'slug' ) );
		} else {
			$wpml = apply_filters( 'wpml_active_languages', null, array( 'skip_missing' => 0 ) );
			if ( is_array( $wpml ) ) {
				$langs = array_keys( $wpml );
			}
		}
		$langs   = array_filter( array_map( array( __CLASS__, 'normalize' ), $langs ) );
		$langs[] = self::site_default();
		return array_values( array_unique( $langs ) );
	}
}
