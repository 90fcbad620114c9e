<?php
/**
 * The settings page (menu slug `rtac`): one Settings API option per tab, and
 * the "Test connection" button.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Admin_Settings {

	const TEST_ACTION = 'rtac_test_connection';

	private Rtac_Settings $settings;

	public function __construct( Rtac_Settings $settings ) {
		$this->settings = $settings;
	}

	/** tab => [option, title] */
	private function tabs(): array {
		return array(
			'connection' => array( Rtac_Registry::OPTION_CONNECTION, __( 'Connection', 'rtac' ) ),
			'profile'    => array( Rtac_Registry::OPTION_PROFILE, __( 'Business profile', 'rtac' ) ),
			'widget'     => array( Rtac_Registry::OPTION_WIDGET, __( 'Widget', 'rtac' ) ),
			'privacy'    => array( Rtac_Registry::OPTION_PRIVACY, __( 'Privacy', 'rtac' ) ),
			'limits'     => array( Rtac_Registry::OPTION_LIMITS, __( 'Limits', 'rtac' ) ),
		);
	}

	/** option => [key => [type, label, description, extra]] */
	private function fields(): array {
		return array(
			Rtac_Registry::OPTION_CONNECTION => array(
				'url'     => array( 'url', __( 'Sidecar URL', 'rtac' ), __( 'Where the assistant service runs, e.g. https://assistant.example.com (no trailing /v1).', 'rtac' ) ),
				'site_id' => array( 'text', __( 'Site ID', 'rtac' ), __( 'The SITE_ID given to "rtac site add".', 'rtac' ) ),
				'secret'  => array( 'secret', __( 'Site secret', 'rtac' ), __( 'Printed by "rtac site add". It is stored but never shown again; leave the field empty to keep the saved one.', 'rtac' ) ),
			),
			Rtac_Registry::OPTION_PROFILE    => array(
				'name'        => array( 'text', __( 'Business name', 'rtac' ), __( 'Defaults to the site title.', 'rtac' ) ),
				'about'       => array( 'textarea', __( 'About the business', 'rtac' ), __( 'Who you are and what you offer, in a few sentences.', 'rtac' ) ),
				'hours'       => array( 'textarea', __( 'Opening hours', 'rtac' ), '' ),
				'phone'       => array( 'text', __( 'Phone', 'rtac' ), '' ),
				'email'       => array( 'email', __( 'E-mail', 'rtac' ), '' ),
				'address'     => array( 'textarea', __( 'Address', 'rtac' ), '' ),
				'booking_url' => array( 'url', __( 'Booking page URL', 'rtac' ), __( 'Shown when the assistant offers a booking.', 'rtac' ) ),
			),
			Rtac_Registry::OPTION_WIDGET     => array(
				'title'    => array( 'text', __( 'Title', 'rtac' ), __( 'Leave empty for the default in each language.', 'rtac' ) ),
				'greeting' => array( 'textarea', __( 'Greeting', 'rtac' ), __( 'Leave empty for the default in each language.', 'rtac' ) ),
				'color'    => array( 'color', __( 'Colour', 'rtac' ), '' ),
				'position' => array(
					'select',
					__( 'Position', 'rtac' ),
					'',
					array(
						'right' => __( 'Bottom right', 'rtac' ),
						'left'  => __( 'Bottom left', 'rtac' ),
					),
				),
			),
			Rtac_Registry::OPTION_PRIVACY    => array(
				'memory'           => array( 'checkbox', __( 'Customer memory', 'rtac' ), __( 'The assistant service remembers returning customers (switched in the service with RTAC_MEMORY). This setting only states it in the suggested privacy policy text.', 'rtac' ) ),
				'retention_notice' => array( 'textarea', __( 'Retention notice', 'rtac' ), __( 'Added to the suggested privacy policy text, e.g. how long conversations are kept.', 'rtac' ) ),
			),
			Rtac_Registry::OPTION_LIMITS     => array(
				'per_ip'          => array( 'number', __( 'Messages per minute per IP address', 'rtac' ), __( '0 switches the limit off.', 'rtac' ) ),
				'per_visitor'     => array( 'number', __( 'Messages per minute per visitor', 'rtac' ), __( '0 switches the limit off.', 'rtac' ) ),
				'leads_per_day'   => array( 'number', __( 'Contact requests per day', 'rtac' ), __( 'At most this many contact requests a day are stored and e-mailed to you, so a script cannot fill your inbox; later visitors that day are asked to contact you directly. 0 switches the cap off.', 'rtac' ) ),
				'trusted_proxies' => array( 'textarea', __( 'Trusted reverse proxies', 'rtac' ), __( 'Only when this site runs behind a reverse proxy, load balancer or CDN that sends every request: its IP addresses or CIDR ranges (such as 10.0.0.0/8), one per line. Requests from them are then counted by the visitor address they report in X-Forwarded-For. Leave it empty otherwise: any visitor can write that header. The RTAC_TRUSTED_PROXIES constant in wp-config.php overrides this field.', 'rtac' ) ),
			),
		);
	}

	/** admin_init. */
	public function register(): void {
		$sanitizers = array(
			Rtac_Registry::OPTION_CONNECTION => 'sanitize_connection',
			Rtac_Registry::OPTION_PROFILE    => 'sanitize_profile',
			Rtac_Registry::OPTION_WIDGET     => 'sanitize_widget',
			Rtac_Registry::OPTION_PRIVACY    => 'sanitize_privacy',
			Rtac_Registry::OPTION_LIMITS     => 'sanitize_limits',
		);
		$fields     = $this->fields();
		foreach ( $this->tabs() as $tab => list( $option, $title ) ) {
			register_setting(
				$option,
				$option,
				array(
					'type'              => 'array',
					'sanitize_callback' => array( $this->settings, $sanitizers[ $option ] ),
					'default'           => Rtac_Settings::defaults()[ $option ],
					'show_in_rest'      => false,
				)
			);
			$page = 'rtac-' . $tab;
			add_settings_section( $option, $title, 'privacy' === $tab ? array( $this, 'render_privacy_section' ) : '__return_false', $page );
			foreach ( $fields[ $option ] as $key => $field ) {
				add_settings_field(
					$option . '-' . $key,
					$field[1],
					array( $this, 'render_field' ),
					$page,
					$option,
					array(
						'label_for' => $option . '-' . $key,
						'option'    => $option,
						'key'       => $key,
						'type'      => $field[0],
						'desc'      => $field[2],
						'choices'   => $field[3] ?? array(),
					)
				);
			}
		}
	}

	/** The privacy tab's introduction: what the log keeps and who reads it. */
	public function render_privacy_section(): void {
		echo '<p class="rtac-privacy-intro">' . esc_html__( 'Conversations are kept by the assistant service for its retention period (RTAC_RETENTION_DAYS, 30 days unless set otherwise) and are then deleted; a customer\'s erasure request removes theirs at once. While they are kept, they are readable by your site\'s staff under Assistant → Conversations: administrators, and any role you give the rtac_view_conversations capability. The suggested privacy policy text says so.', 'rtac' ) . '</p>';
	}

	public function render(): void {
		Rtac_Capability::require_manage();
		$tabs = $this->tabs();
		$tab  = isset( $_GET['tab'] ) ? sanitize_key( wp_unslash( $_GET['tab'] ) ) : 'connection'; // phpcs:ignore WordPress.Security.NonceVerification.Recommended -- navigation only
		$tab  = isset( $tabs[ $tab ] ) ? $tab : 'connection';

		echo '<div class="wrap rtac-settings"><h1>' . esc_html__( 'Chat assistant settings', 'rtac' ) . '</h1>';
		Rtac_Admin::render_notice();
		settings_errors();
		echo '<nav class="nav-tab-wrapper" aria-label="' . esc_attr__( 'Settings sections', 'rtac' ) . '">';
		foreach ( $tabs as $slug => list( , $title ) ) {
			printf(
				'<a href="%1$s" class="nav-tab%2$s"%3$s>%4$s</a>',
				esc_url( Rtac_Admin::page_url( 'rtac', array( 'tab' => $slug ) ) ),
				$slug === $tab ? ' nav-tab-active' : '',
				$slug === $tab ? ' aria-current="page"' : '',
				esc_html( $title )
			);
		}
		echo '</nav>';

		if ( 'connection' === $tab ) {
			$this->render_url_warning();
		}
		echo '<form method="post" action="' . esc_url( admin_url( 'options.php' ) ) . '">';
		settings_fields( $tabs[ $tab ][0] );
		do_settings_sections( 'rtac-' . $tab );
		submit_button();
		echo '</form>';

		if ( 'connection' === $tab ) {
			$this->render_test();
		}
		echo '</div>';
	}

	public function render_field( array $args ): void {
		$option = $args['option'];
		$key    = $args['key'];
		$id     = $args['label_for'];
		$name   = $option . '[' . $key . ']';
		$values = $this->settings->get( $option );
		$value  = $values[ $key ] ?? '';
		$locked = Rtac_Registry::OPTION_CONNECTION === $option && $this->settings->is_locked( $key );

		if ( Rtac_Registry::OPTION_LIMITS === $option && 'trusted_proxies' === $key && defined( 'RTAC_TRUSTED_PROXIES' ) ) {
			printf( '<textarea id="%1$s" rows="4" class="large-text" disabled readonly>%2$s</textarea>', esc_attr( $id ), esc_textarea( implode( "\n", $this->settings->trusted_proxies() ) ) );
			/* translators: %s: PHP constant name. */
			printf( '<p class="description">%s</p>', esc_html( sprintf( __( 'Locked by the %s constant in wp-config.php.', 'rtac' ), 'RTAC_TRUSTED_PROXIES' ) ) );
			return;
		}

		if ( $locked ) {
			$value = 'secret' === $key ? '' : $this->settings->connection()[ $key ];
			$text  = 'secret' === $key ? __( 'Set in wp-config.php', 'rtac' ) : $value;
			printf( '<input type="text" id="%1$s" class="regular-text" value="%2$s" disabled readonly />', esc_attr( $id ), esc_attr( $text ) );
			/* translators: %s: PHP constant name. */
			printf( '<p class="description">%s</p>', esc_html( sprintf( __( 'Locked by the %s constant in wp-config.php.', 'rtac' ), Rtac_Settings::CONSTANTS[ $key ] ) ) );
			return;
		}

		switch ( $args['type'] ) {
			case 'secret':
				// The saved secret never goes back into the page, not even masked.
				$saved = '' !== (string) $value;
				printf(
					'<input type="password" id="%1$s" name="%2$s" class="regular-text" value="" autocomplete="new-password" placeholder="%3$s" />',
					esc_attr( $id ),
					esc_attr( $name ),
					esc_attr( $saved ? __( 'Saved — leave empty to keep it', 'rtac' ) : '' )
				);
				if ( $saved ) {
					printf( '<br /><label><input type="checkbox" name="%1$s" value="1" /> %2$s</label>', esc_attr( $option . '[clear_secret]' ), esc_html__( 'Remove the saved secret', 'rtac' ) );
				}
				break;
			case 'textarea':
				printf( '<textarea id="%1$s" name="%2$s" rows="4" class="large-text">%3$s</textarea>', esc_attr( $id ), esc_attr( $name ), esc_textarea( (string) $value ) );
				break;
			case 'checkbox':
				printf( '<input type="hidden" name="%1$s" value="0" /><input type="checkbox" id="%2$s" name="%1$s" value="1"%3$s />', esc_attr( $name ), esc_attr( $id ), checked( (bool) $value, true, false ) );
				break;
			case 'select':
				printf( '<select id="%1$s" name="%2$s">', esc_attr( $id ), esc_attr( $name ) );
				foreach ( $args['choices'] as $choice => $label ) {
					printf( '<option value="%1$s"%2$s>%3$s</option>', esc_attr( $choice ), selected( (string) $value, (string) $choice, false ), esc_html( $label ) );
				}
				echo '</select>';
				break;
			case 'number':
				printf( '<input type="number" id="%1$s" name="%2$s" value="%3$s" min="0" max="10000" step="1" class="small-text" />', esc_attr( $id ), esc_attr( $name ), esc_attr( (string) (int) $value ) );
				break;
			default: // text, url, email, color
				$type = in_array( $args['type'], array( 'url', 'email', 'color' ), true ) ? $args['type'] : 'text';
				printf( '<input type="%1$s" id="%2$s" name="%3$s" value="%4$s" class="%5$s" />', esc_attr( $type ), esc_attr( $id ), esc_attr( $name ), 'url' === $type ? esc_url( (string) $value ) : esc_attr( (string) $value ), 'color' === $type ? '' : 'regular-text' );
		}
		if ( '' !== $args['desc'] ) {
			printf( '<p class="description">%s</p>', esc_html( $args['desc'] ) );
		}
	}

	/**
	 * A warning when the sidecar is reached over plain http across a network:
	 * visitors' messages and the answers would travel readable by anyone on the
	 * way. (http to this machine, such as http://127.0.0.1:8787, is the normal set-up.)
	 */
	private function render_url_warning(): void {
		$url = (string) $this->settings->connection()['url'];
		if ( '' === $url || ! self::is_exposed_url( $url ) ) {
			return;
		}
		echo '<div class="notice notice-warning inline rtac-url-warning"><p>';
		esc_html_e( 'The assistant service is reached over plain http on another machine: visitors\' messages and the answers cross the network unencrypted. Serve it over https (or run it on this server and use a loopback address such as http://127.0.0.1:8787).', 'rtac' );
		echo '</p>';
		if ( ! $this->settings->is_locked( 'url' ) ) {
			echo '<p>';
			esc_html_e( 'We also recommend setting the connection in wp-config.php instead of here, so it is not kept in the database:', 'rtac' );
			echo ' <code>RTAC_SIDECAR_URL</code>, <code>RTAC_SITE_ID</code>, <code>RTAC_SIDECAR_SECRET</code>.</p>';
		}
		echo '</div>';
	}

	/** Whether a sidecar URL is neither https nor on this machine. */
	public static function is_exposed_url( string $url ): bool {
		$scheme = strtolower( (string) wp_parse_url( $url, PHP_URL_SCHEME ) );
		$host   = (string) wp_parse_url( $url, PHP_URL_HOST );
		return 'https' !== $scheme && ! Rtac_Net::is_loopback_host( $host );
	}

	/* ---- Test connection ---- */

	private function render_test(): void {
		echo '<h2>' . esc_html__( 'Test the connection', 'rtac' ) . '</h2>';
		echo '<p>' . esc_html__( 'Checks that the assistant service answers and accepts this site\'s signature.', 'rtac' ) . '</p>';
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::TEST_ACTION ) . '" />';
		// Own names: the settings form above already has a #_wpnonce and a #submit.
		wp_nonce_field( self::TEST_ACTION, 'rtac_test_nonce' );
		submit_button( __( 'Test connection', 'rtac' ), 'secondary', 'rtac-test', false );
		echo '</form>';

		$result = get_transient( Rtac_Registry::TRANSIENT_TEST_RESULT . get_current_user_id() );
		if ( ! is_array( $result ) ) {
			return;
		}
		$rows = array(
			__( 'Service health (/healthz)', 'rtac' ) => $result['health'],
			__( 'Signed request (/v1/stats)', 'rtac' ) => $result['stats'],
		);
		echo '<table class="widefat striped rtac-test-result"><tbody>';
		foreach ( $rows as $label => $r ) {
			printf(
				'<tr><th scope="row">%1$s</th><td><span class="rtac-status rtac-status-%2$s">%3$s</span> %4$s</td></tr>',
				esc_html( $label ),
				$r['ok'] ? 'ok' : 'fail',
				$r['ok'] ? esc_html__( 'OK', 'rtac' ) : esc_html__( 'Failed', 'rtac' ),
				esc_html( $r['detail'] )
			);
		}
		echo '</tbody></table>';
	}

	/** admin-post.php?action=rtac_test_connection: capability → nonce → act → redirect. */
	public function handle_test(): void {
		Rtac_Capability::require_manage();
		check_admin_referer( self::TEST_ACTION, 'rtac_test_nonce' );

		$client = Rtac_Client::from_settings( $this->settings );
		$health = $client->request( 'GET', '/healthz' );
		$stats  = $client->request( 'GET', '/v1/stats' );

		$hb = is_array( $health['body'] ) ? $health['body'] : array();
		set_transient(
			Rtac_Registry::TRANSIENT_TEST_RESULT . get_current_user_id(),
			array(
				'health' => array(
					'ok'     => null === $health['error'],
					'detail' => null === $health['error']
						/* translators: 1: status, 2: database state, 3: model provider, 4: embedder. */
						? sprintf( __( 'status %1$s, database %2$s, provider %3$s, embedder %4$s', 'rtac' ), (string) ( $hb['status'] ?? '?' ), (string) ( $hb['db'] ?? '?' ), (string) ( $hb['provider'] ?? '?' ), (string) ( $hb['embedder'] ?? '?' ) )
						: $health['error']->get_error_message(),
				),
				'stats'  => array(
					'ok'     => null === $stats['error'],
					'detail' => null === $stats['error']
						/* translators: %s: number of chat turns. */
						? sprintf( __( 'signature accepted; %s turns so far', 'rtac' ), number_format_i18n( (int) ( $stats['body']['turns'] ?? 0 ) ) )
						: $stats['error']->get_error_message(),
				),
			),
			10 * MINUTE_IN_SECONDS
		);
		wp_safe_redirect(
			Rtac_Admin::page_url(
				'rtac',
				array(
					'tab'      => 'connection',
					'rtac_msg' => 'tested',
				)
			)
		);
		exit;
	}
}
