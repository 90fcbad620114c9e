<?php
/**
 * Reading and sanitizing the plugin's settings.
 *
 * Every stored value goes through here, so the REST routes, the widget, the
 * sync and the admin pages agree on defaults and on the wp-config overrides.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Settings {

	/** Connection fields that a wp-config.php constant can pin. */
	const CONSTANTS = array(
		'url'     => 'RTAC_SIDECAR_URL',
		'site_id' => 'RTAC_SITE_ID',
		'secret'  => 'RTAC_SIDECAR_SECRET',
	);

	const POSITIONS = array( 'right', 'left' );

	/** @return array<string, array<string, mixed>> option name => defaults */
	public static function defaults(): array {
		return array(
			Rtac_Registry::OPTION_CONNECTION => array(
				'url'     => '',
				'site_id' => '',
				'secret'  => '',
			),
			Rtac_Registry::OPTION_PROFILE    => array(
				'name'        => '',
				'about'       => '',
				'hours'       => '',
				'phone'       => '',
				'email'       => '',
				'address'     => '',
				'booking_url' => '',
			),
			// Empty texts mean "the translated default", so a site in another
			// language gets its own wording without saving the page first.
			Rtac_Registry::OPTION_WIDGET     => array(
				'title'    => '',
				'greeting' => '',
				'color'    => '#2563eb',
				'position' => 'right',
			),
			Rtac_Registry::OPTION_PRIVACY    => array(
				'memory'           => true,
				'retention_notice' => '',
			),
			Rtac_Registry::OPTION_LIMITS     => array(
				'per_ip'          => 30,
				'per_visitor'     => 20,
				// Stored and mailed leads a day: far above a small business's real
				// enquiries, far below what fills an inbox.
				'leads_per_day'   => 50,
				// Reverse proxies whose X-Forwarded-For is believed (one address or CIDR range a line).
				'trusted_proxies' => '',
			),
		);
	}

	/** Stored values merged over the defaults; unknown keys are dropped. */
	public function get( string $option ): array {
		$defaults = self::defaults()[ $option ] ?? array();
		$stored   = get_option( $option, array() );
		$stored   = is_array( $stored ) ? $stored : array();
		return array_merge( $defaults, array_intersect_key( $stored, $defaults ) );
	}

	/** Connection values after wp-config.php overrides. */
	public function connection(): array {
		$values = $this->get( Rtac_Registry::OPTION_CONNECTION );
		foreach ( self::CONSTANTS as $field => $constant ) {
			if ( $this->is_locked( $field ) ) {
				$values[ $field ] = (string) constant( $constant );
			}
		}
		return $values;
	}

	public function is_locked( string $field ): bool {
		$constant = self::CONSTANTS[ $field ] ?? '';
		return '' !== $constant && defined( $constant );
	}

	public function is_configured(): bool {
		$c = $this->connection();
		return '' !== $c['url'] && '' !== $c['site_id'] && '' !== $c['secret'];
	}

	public function profile(): array {
		return $this->get( Rtac_Registry::OPTION_PROFILE );
	}

	/** The contact card shown to visitors: {phone, email, address}. */
	public function contact(): array {
		$p = $this->profile();
		return array(
			'phone'   => (string) $p['phone'],
			'email'   => (string) $p['email'],
			'address' => (string) $p['address'],
		);
	}

	public function booking_url(): string {
		return (string) $this->profile()['booking_url'];
	}

	public function business_name(): string {
		$name = (string) $this->profile()['name'];
		return '' !== $name ? $name : (string) get_bloginfo( 'name' );
	}

	public function widget(): array {
		$w = $this->get( Rtac_Registry::OPTION_WIDGET );
		if ( '' === $w['title'] ) {
			$w['title'] = __( 'Questions? Ask us', 'rtac' );
		}
		if ( '' === $w['greeting'] ) {
			/* translators: %s: the business name. */
			$w['greeting'] = sprintf( __( 'Hello! I can answer questions about %s. How can I help?', 'rtac' ), $this->business_name() );
		}
		return $w;
	}

	public function privacy(): array {
		return $this->get( Rtac_Registry::OPTION_PRIVACY );
	}

	/** Per-minute limits and the daily lead cap; 0 switches a limit off. */
	public function limits(): array {
		$l = $this->get( Rtac_Registry::OPTION_LIMITS );
		return array(
			'per_ip'        => max( 0, (int) $l['per_ip'] ),
			'per_visitor'   => max( 0, (int) $l['per_visitor'] ),
			'leads_per_day' => max( 0, (int) $l['leads_per_day'] ),
		);
	}

	/**
	 * The reverse proxies whose X-Forwarded-For is believed: the
	 * RTAC_TRUSTED_PROXIES constant (a list separated by commas or spaces, or
	 * an array) when defined, else the Limits tab. Empty (the default): the
	 * header is ignored.
	 *
	 * @return string[] Addresses and CIDR ranges.
	 */
	public function trusted_proxies(): array {
		if ( defined( 'RTAC_TRUSTED_PROXIES' ) ) {
			return Rtac_Net::parse_ranges( constant( 'RTAC_TRUSTED_PROXIES' ) );
		}
		return Rtac_Net::parse_ranges( (string) $this->get( Rtac_Registry::OPTION_LIMITS )['trusted_proxies'] );
	}

	/* ---- sanitizers (register_setting callbacks; also safe to call directly) ---- */

	public function sanitize_connection( $input ): array {
		$input   = is_array( $input ) ? $input : array();
		$current = $this->get( Rtac_Registry::OPTION_CONNECTION );
		$out     = $current;

		if ( ! $this->is_locked( 'url' ) && isset( $input['url'] ) ) {
			$url        = esc_url_raw( trim( (string) $input['url'] ), array( 'http', 'https' ) );
			$out['url'] = untrailingslashit( $url );
		}
		if ( ! $this->is_locked( 'site_id' ) && isset( $input['site_id'] ) ) {
			$out['site_id'] = substr( (string) preg_replace( '/[^A-Za-z0-9_.-]/', '', (string) $input['site_id'] ), 0, 64 );
		}
		// The secret is never printed back into the form, so an empty field means
		// "unchanged"; clearing it is an explicit checkbox.
		if ( ! $this->is_locked( 'secret' ) ) {
			if ( ! empty( $input['clear_secret'] ) ) {
				$out['secret'] = '';
			} elseif ( isset( $input['secret'] ) && '' !== trim( (string) $input['secret'] ) ) {
				$out['secret'] = trim( (string) $input['secret'] );
			}
		}
		return $out;
	}

	public function sanitize_profile( $input ): array {
		$input = is_array( $input ) ? $input : array();
		$email = sanitize_email( (string) ( $input['email'] ?? '' ) );
		return array(
			'name'        => sanitize_text_field( (string) ( $input['name'] ?? '' ) ),
			'about'       => sanitize_textarea_field( (string) ( $input['about'] ?? '' ) ),
			'hours'       => sanitize_textarea_field( (string) ( $input['hours'] ?? '' ) ),
			'phone'       => sanitize_text_field( (string) ( $input['phone'] ?? '' ) ),
			'email'       => is_email( $email ) ? $email : '',
			'address'     => sanitize_textarea_field( (string) ( $input['address'] ?? '' ) ),
			'booking_url' => esc_url_raw( trim( (string) ( $input['booking_url'] ?? '' ) ), array( 'http', 'https' ) ),
		);
	}

	public function sanitize_widget( $input ): array {
		$input    = is_array( $input ) ? $input : array();
		$color    = sanitize_hex_color( (string) ( $input['color'] ?? '' ) );
		$position = (string) ( $input['position'] ?? 'right' );
		return array(
			'title'    => sanitize_text_field( (string) ( $input['title'] ?? '' ) ),
			'greeting' => sanitize_textarea_field( (string) ( $input['greeting'] ?? '' ) ),
			'color'    => $color ? $color : self::defaults()[ Rtac_Registry::OPTION_WIDGET ]['color'],
			'position' => in_array( $position, self::POSITIONS, true ) ? $position : 'right',
		);
	}

	public function sanitize_privacy( $input ): array {
		$input = is_array( $input ) ? $input : array();
		return array(
			'memory'           => ! empty( $input['memory'] ),
			'retention_notice' => sanitize_textarea_field( (string) ( $input['retention_notice'] ?? '' ) ),
		);
	}

	public function sanitize_limits( $input ): array {
		$input    = is_array( $input ) ? $input : array();
		$defaults = self::defaults()[ Rtac_Registry::OPTION_LIMITS ];
		$out      = array();
		foreach ( array_diff_key( $defaults, array( 'trusted_proxies' => 0 ) ) as $key => $default ) {
			$out[ $key ] = isset( $input[ $key ] ) && '' !== $input[ $key ] ? min( 10000, max( 0, (int) $input[ $key ] ) ) : $default;
		}
		$out['trusted_proxies'] = implode( "\n", Rtac_Net::parse_ranges( is_string( $input['trusted_proxies'] ?? null ) ? $input['trusted_proxies'] : '' ) );
		return $out;
	}
}
