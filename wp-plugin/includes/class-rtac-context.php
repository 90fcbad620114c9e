<?php
/**
 * The pinned context of a turn: business profile, opening hours, contact ways,
 * booking link, pinned knowledge-base entries, then whatever themes and
 * plugins add through the `rtac_context` filter (e.g. a live price list).
 *
 * Read live on every turn: a price changed in wp-admin is in the next answer
 * with no re-index and no cache to clear.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Context {

	private Rtac_Settings $settings;

	public function __construct( Rtac_Settings $settings ) {
		$this->settings = $settings;
	}

	/**
	 * All entries after the filter, pinned or not.
	 *
	 * @return array<int, array{title:string, content:string, pinned:bool}>
	 */
	public function entries( string $lang ): array {
		$ctx = array_merge( $this->profile_entries(), Rtac_Knowledge_Base::pinned_entries( $lang ) );

		/**
		 * Filters the context sent with every chat turn.
		 *
		 * @param array  $ctx  Entries: ['title' => string, 'content' => string, 'pinned' => bool].
		 * @param string $lang The visitor's language, a primary subtag such as 'et'.
		 */
		$ctx = apply_filters( 'rtac_context', $ctx, $lang );
		return is_array( $ctx ) ? $ctx : array();
	}

	/**
	 * The chat request's `pinned` list: [{title, content}], pinned entries only,
	 * trimmed to what the sidecar accepts.
	 */
	public function pinned( string $lang ): array {
		$out = array();
		foreach ( $this->entries( $lang ) as $entry ) {
			if ( ! is_array( $entry ) || empty( $entry['pinned'] ) ) {
				continue;
			}
			$title   = trim( (string) ( $entry['title'] ?? '' ) );
			$content = trim( (string) ( $entry['content'] ?? '' ) );
			if ( '' === $content ) {
				continue;
			}
			// Cut to the sidecar's limits: one entry beyond them would turn the whole turn into a 400.
			$out[] = array(
				'title'   => mb_substr( $title, 0, Rtac_Protocol::MAX_TITLE ),
				'content' => mb_substr( $content, 0, Rtac_Protocol::MAX_PINNED_CONTENT ),
			);
			if ( count( $out ) >= Rtac_Protocol::MAX_PINNED ) {
				break;
			}
		}
		return $out;
	}

	/** The business profile from the settings, one entry per topic. */
	public function profile_entries(): array {
		$p       = $this->settings->profile();
		$entries = array();

		$about = trim( $this->settings->business_name() . "\n" . $p['about'] );
		if ( '' !== $about ) {
			$entries[] = self::entry( __( 'About the business', 'rtac' ), $about );
		}
		if ( '' !== trim( $p['hours'] ) ) {
			$entries[] = self::entry( __( 'Opening hours', 'rtac' ), $p['hours'] );
		}

		$contact = array();
		if ( '' !== $p['phone'] ) {
			/* translators: %s: phone number. */
			$contact[] = sprintf( __( 'Phone: %s', 'rtac' ), $p['phone'] );
		}
		if ( '' !== $p['email'] ) {
			/* translators: %s: e-mail address. */
			$contact[] = sprintf( __( 'E-mail: %s', 'rtac' ), $p['email'] );
		}
		if ( '' !== $p['address'] ) {
			/* translators: %s: postal address. */
			$contact[] = sprintf( __( 'Address: %s', 'rtac' ), $p['address'] );
		}
		if ( $contact ) {
			$entries[] = self::entry( __( 'Contact', 'rtac' ), implode( "\n", $contact ) );
		}
		if ( '' !== $p['booking_url'] ) {
			/* translators: %s: booking page URL. */
			$booking   = sprintf( __( 'Appointments can be booked online: %s', 'rtac' ), $p['booking_url'] );
			$entries[] = self::entry( __( 'Booking', 'rtac' ), $booking );
		}
		return $entries;
	}

	private static function entry( string $title, string $content ): array {
		return array(
			'title'   => $title,
			'content' => trim( $content ),
			'pinned'  => true,
		);
	}
}
